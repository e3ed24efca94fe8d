#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
In a program that uses CUDA, flags a training step loop whose model is never passed to
`torch.compile` (nor compiled with `model.compile()`). Reported once per file, at the innermost
training loop's header.

## Why is this bad
In eager mode every op is its own kernel launch and writes its result to memory for the next op
to read back. `torch.compile` fuses chains of pointwise and reduction ops into few kernels and
cuts Python overhead, often speeding up training steps by tens of percent.

## Example
```python
model = Net().to(device)
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
model = torch.compile(Net().to(device))
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  auto compiled = [&](const std::string& name) {
    const bool model = std::any_of(m.models.begin(), m.models.end(), [&](const Model& model) {
      return model.name == name && model.compiled;
    });
    return model || std::any_of(m.api_uses.begin(), m.api_uses.end(), [&](const ApiUse& use) {
             // A compile call whose subject gpulint cannot name may well be this model.
             return use.kind == ApiKind::Compile && (use.subject == name || use.subject.empty());
           });
  };
  for (int32_t loop : m.innermost_training_loops()) {
    const auto calls = m.events_in(loop, StepEventKind::ModelCall);
    // No model call seen: which model trains is unknown, and unknown stays silent.
    if (calls.empty() || std::any_of(calls.begin(), calls.end(),
                                     [&](const StepEvent* e) { return compiled(e->name); })) {
      continue;
    }
    sink.report({m.loops[loop].header,
                 "training loop runs `" + calls.front()->name +
                     "` eagerly: it is never passed to `torch.compile`, so every op is a "
                     "separate kernel launch",
                 {},
                 {}});
    return;
  }
}

}  // namespace

extern const Rule GL508 = {
    {"GL508",
     "no-compile",
     "overhead",
     "Training loop over a model never compiled",
     "compile the model once before training: `model = torch.compile(model)`",
     {},
     kDocs,
     false,
     Severity::Warning},
    check,
    {},
    shape::kFlatLow};

}  // namespace gpulint::rules
