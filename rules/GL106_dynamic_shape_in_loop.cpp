#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags ops whose output size depends on the data — `nonzero`, `argwhere`, boolean-mask indexing
`x[mask]`, `masked_select`, `unique`, `unique_consecutive`, and `repeat_interleave` without
`output_size` — inside a training or evaluation step loop, or a helper it calls every step,
unless an interval guard limits them to some steps.

## Why is this bad
PyTorch must allocate the output before it can launch the next kernel, so it copies the size
from the GPU to the host and waits for it: a hidden synchronisation every step, with the same
stall as `.item()`.

## Example
```python
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    logits = model(x)
    valid = y != ignore_index
    loss = criterion(logits[valid], y[valid])
    loss.backward()
    optimizer.step()
```

## Use instead
```python
criterion = nn.CrossEntropyLoss(ignore_index=ignore_index)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = criterion(model(x), y)  # fixed shapes: padding is masked inside the loss
    loss.backward()
    optimizer.step()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!in.model.cuda_context()) return;
  for (const DynamicShape& op : in.model.dynamic_shapes) {
    StepContext context = in.model.step_context(op.scope);
    if (!context.unguarded_per_step()) continue;
    Finding f{op.span,
              "`" + op.spelling + "` in " + step_place(in.model, context) + via_suffix(context) +
                  " needs its output size on the host every step",
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL106 = {
    {"GL106", "dynamic-shape-in-loop", "sync", "Data-dependent output shape every step",
     "keep shapes fixed: mask with `torch.where` or multiply by the mask instead of selecting",
     "keep shapes fixed: mask with `torch::where` or multiply by the mask instead of selecting",
     kDocs, true, Severity::Warning},
    check,
    {"dynamic", "shape.readback_launch", "shape.fixed_launch",
     "count, read back and launch by the count, vs a fixed-size launch"},
    shape::kFlatLow,
    evidence::kDynamicShape};

}  // namespace gpulint::rules
