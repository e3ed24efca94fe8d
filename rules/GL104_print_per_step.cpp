#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags console, logging, progress-bar and metrics-writer calls (`print`, `sys.stdout.write`,
`logging.*`, `logger.*`, `tqdm.write`, `pbar.set_postfix`, `writer.add_scalar`, `wandb.log`, `run.log` of a
`wandb.init()` run) that run on every step of a step loop: not under any branch except a
process-rank check (`rank == 0`, `is_main_process`, `is_global_zero`, `is_root_worker()`...).
A rank check joined by `and` to a clock throttle (`rank == 0 and now - last_log > every_s`,
with `now` from `time.time()`, `perf_counter()` or `monotonic()`) runs once every so many
seconds: silent.
A logging helper the loop calls is one finding, at its first write, with its other writes as
related locations.

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

## Fix
Unsafe: an output that is a statement of its own in the body of a loop that counts its steps
(`for step, b in enumerate(...)`, `for i in range(...)`; in C++ `for (int i = 0; ...)`) is put
under `if step % 100 == 0:` (C++: `if (i % 100 == 0)` before the statement). It then prints or
logs a hundredth as often, which is the point but changes what the program writes, and 100 is a
guess at the interval you want. A loop over a loader with a counter kept by hand has none the
fix can trust, and gets no fix.
)md";

constexpr int kInterval = 100;

// The loop whose own body holds the output, when it counts its steps.
const Loop* counted_loop(const StepModel& m, const OutputCall& out) {
  for (const Loop& loop : m.loops) {
    if (loop.scope == out.scope && !loop.counter.empty()) return &loop;
  }
  return nullptr;
}

std::optional<Fix> every_n_steps(const StepModel& m, const OutputCall& out) {
  const Loop* loop = counted_loop(m, out);
  if (loop == nullptr || !out.indent) return std::nullopt;
  if (m.language == Language::Cpp) {
    const std::string guard = "if (" + loop->counter + " % " + std::to_string(kInterval) + " == 0)";
    return Fix{"write it every " + std::to_string(kInterval) + " steps: `" + guard + "`",
               Applicability::Unsafe,
               {{{out.span.begin, out.span.begin}, guard + " "}}};
  }
  const std::string unit = out.indent->find('\t') != std::string::npos ? "\t" : "    ";
  const std::string guard = "if " + loop->counter + " % " + std::to_string(kInterval) + " == 0:";
  const uint32_t line_start = out.span.begin - static_cast<uint32_t>(out.indent->size());
  Fix fix{"write it every " + std::to_string(kInterval) + " steps: `" + guard + "`",
          Applicability::Unsafe,
          {}};
  fix.edits.push_back({{line_start, line_start}, *out.indent + guard + "\n" + unit});
  for (uint32_t at : out.further_lines) fix.edits.push_back({{at, at}, unit});
  return fix;
}

void check(const RuleInput& in, Sink& sink) {
  if (!in.model.cuda_context()) return;
  for (const OutputCall& out : in.model.outputs) {
    StepContext context = in.model.step_context(out.scope);
    if (!context.per_step() || !context.every_step) continue;
    Finding f{out.span,
              "`" + out.callee + "` runs on every step of " + step_place(in.model, context) +
                  via_suffix(context),
              {},
              context.via.empty() ? every_n_steps(in.model, out) : std::nullopt};
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
    shape::kFlatLow,
    evidence::kPrint};

}  // namespace gpulint::rules
