#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags console, logging, progress-bar and metrics-writer calls (`print`, `sys.stdout.write`,
`logging.*`, `logger.*`, `tqdm.write`, `pbar.set_postfix`, `writer.add_scalar`, `wandb.log`, `run.log` of a
`wandb.init()` run) that run on every step of a step loop: not under any branch except a
process-rank check.

## Why is this bad
Console and logging I/O every step costs host time the GPU spends waiting, and every tensor
value formatted into the message forces a sync (GL101 reports that part).

## Example
```python
for step, (x, y) in enumerate(loader):
    loss = train_step(x, y)
    print(f"step {step} loss {loss:.4f}")
```

## Use instead
```python
for step, (x, y) in enumerate(loader):
    loss = train_step(x, y)
    if step % log_every == 0:
        print(f"step {step} loss {loss:.4f}")
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!in.model.cuda_context()) return;
  for (const OutputCall& out : in.model.outputs) {
    StepContext context = in.model.step_context(out.scope);
    if (!context.per_step() || !context.every_step) continue;
    Finding f{out.span,
              "`" + out.callee + "` runs on every step of " + step_place(in.model, context) +
                  via_suffix(context),
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL104 = {
    {"GL104", "print-per-step", "sync", "Console or logging output every step",
     "log every N steps (`if step % log_every == 0:`)",
     "print every N steps (`if (step % log_every == 0)`)", kDocs, true, Severity::Warning},
    check,
    {"sync", "{profile}.print", "{profile}.pipelined",
     "a value read back, formatted and written every step, a {profile} step of {kernels} kernels"},
    shape::kFlatLow};

}  // namespace gpulint::rules
