#include <string>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags Python control flow on a tensor's value (`if loss > 0:`, `elif torch.isnan(loss):`,
`while (x != 0).any():`, `assert y.min() >= 0`) inside a training or evaluation step loop, or a helper it calls every
step, unless an interval guard limits it to some steps. Metadata the host holds is no value:
`torch.is_floating_point(x)` and the other `torch.is_*` predicates (not `is_nonzero`), and a
comparison with a tensor's `.dtype`, `.device`, `.ndim`, `.is_cuda` or `.requires_grad`, whatever
the other side is (`if table.dtype != dtype:`). Nor is a tensor made on the host: a factory that
names no device (`if torch.rand(1) > 0.5:`, unless `torch.set_default_device("cuda")` ran),
`.cpu()` copies and what they hold.

## Why is this bad
Python needs a plain `bool` to take a branch, so it calls `.item()` on the tensor behind your
back. That waits for every kernel queued before it: the CPU loses its lead, and the GPU idles
while the CPU launches the next step.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    if loss > max_loss:
        loss = loss.clamp(max=max_loss)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss = torch.clamp(loss, max=max_loss)  # decided on the device, no host round trip
    loss.backward()
    optimizer.step()
```
)md";

// The condition as written, for the message; a long or multi-line one is not quoted.
std::string quoted_condition(std::string_view condition) {
  constexpr size_t kLongest = 60;
  if (condition.size() > kLongest || condition.find('\n') != std::string_view::npos) {
    return "a condition on a tensor";
  }
  return "`" + std::string(condition) + "`";
}

void check(const RuleInput& in, Sink& sink) {
  if (!in.model.cuda_context()) return;
  for (const TensorCondition& condition : in.model.tensor_conditions) {
    StepContext context = in.model.step_context(condition.scope);
    if (!context.unguarded_per_step()) continue;
    Finding f{condition.span,
              "branching on " + quoted_condition(condition.written) + " in " +
                  step_place(in.model, context) + via_suffix(context) +
                  " reads a tensor value on the host every step",
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL105 = {
    {"GL105",
     "tensor-branch-in-loop",
     "sync",
     "Python branch on a tensor value every step",
     "keep the decision on the device (`torch.where`, `clamp`, masking) or check it every N steps",
     {},
     kDocs,
     true,
     Severity::Warning},
    check,
    {"sync", "{profile}.readback", "{profile}.pipelined",
     "a 4-byte device-to-host read every step, a {profile} step of {kernels} kernels"},
    shape::kFlatLow,
    evidence::kBranch};

}  // namespace gpulint::rules
