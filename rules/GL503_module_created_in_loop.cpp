#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags an `nn.Module` with parameters (`nn.Linear`, `nn.Conv2d`, `nn.LayerNorm`, ...) constructed
inside a training or evaluation step loop, a helper it calls every step, or a module's
`forward()`. Parameterless modules (`nn.ReLU()`, `nn.Dropout()`, loss modules) stay silent.

## Why is this bad
Every construction allocates and initialises new parameters on the host, and moving the module
copies them to the GPU, every step. The optimizer was built with the parameters that existed
when it was created, so the new ones are never trained either.

## Example
```python
class Net(nn.Module):
    def forward(self, x):
        proj = nn.Linear(x.shape[-1], 256).to(x.device)
        return proj(x)
```

## Use instead
```python
class Net(nn.Module):
    def __init__(self, in_features):
        super().__init__()
        self.proj = nn.Linear(in_features, 256)

    def forward(self, x):
        return self.proj(x)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  for (const ModuleConstruction& mc : m.modules) {
    if (!mc.has_parameters) continue;
    if (mc.in_forward) {
      sink.report({mc.span,
                   "`" + mc.spelling +
                       "(...)` in forward() allocates and initialises new parameters on every "
                       "call",
                   {},
                   {}});
      continue;
    }
    const StepContext context = m.step_context(mc.scope);
    // A construction guarded by the step counter runs once in a while, not every step.
    if (!context.unguarded_per_step()) continue;
    Finding f{mc.span,
              "`" + mc.spelling + "(...)` in " + step_place(m, context) + via_suffix(context) +
                  " allocates and initialises new parameters every step",
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL503 = {
    {"GL503", "module-created-in-loop", "overhead", "Module with parameters constructed per step",
     "construct the module once, in `__init__` or before the loop",
     "construct the module once, in the model's constructor (`register_module`) or before the loop",
     kDocs, true, Severity::Warning},
    check,
    {"dynamic", "weights.recreate", "weights.reuse",
     "a {layer} layer allocated, initialised on the host and uploaded every step"},
    0,
    evidence::kHostWork};

}  // namespace gpulint::rules
