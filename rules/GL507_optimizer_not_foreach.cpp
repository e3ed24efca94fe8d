#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags an optimizer constructed with `foreach=False`, and a hand-written update loop over the
parameters (`for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)`) that runs every step.

## Why is this bad
A per-parameter update launches a few small kernels for every parameter tensor, every step; a
model with hundreds of tensors spends the optimizer step on launch overhead. The foreach (and
fused) implementations update all parameters with a handful of multi-tensor kernels.

## Example
```python
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, foreach=False)

with torch.no_grad():
    for p in model.parameters():
        p -= lr * p.grad
```

## Use instead
```python
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)

# Instead of the hand-written loop: foreach is the default on CUDA.
sgd = torch.optim.SGD(model.parameters(), lr=lr)
sgd.step()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  for (const ApiUse& use : m.api_uses) {
    if (use.kind == ApiKind::ForeachDisabled) {
      sink.report({use.span,
                   "`" + use.spelling +
                       "(..., foreach=False)` updates parameters one tensor at a time, launching "
                       "kernels for each of them every step",
                   {},
                   {}});
      continue;
    }
    if (use.kind != ApiKind::ManualParamUpdate) continue;
    const StepContext context = m.step_context(use.scope);
    if (!context.per_step()) continue;
    Finding f{use.span,
              "per-parameter update loop in " + step_place(m, context) + via_suffix(context) +
                  " launches kernels for each parameter every step",
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL507 = {
    {"GL507",
     "optimizer-not-foreach",
     "overhead",
     "Optimizer updates parameters one at a time",
     "use a torch.optim optimizer with its default foreach (or `fused=True`) implementation",
     {},
     kDocs,
     false,
     Severity::Warning},
    check};

}  // namespace gpulint::rules
