#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a model that a training step loop calls, in a program that moves data to a GPU, when the
model itself is never moved: no `.to(device)` / `.cuda()`, no `accelerator.prepare(...)`, no
framework trainer that places it (`deepspeed.initialize(model=...)` does, and so does
`from_pretrained(..., device_map=...)` or a quantized load). A Python model that reaches the loop as a function parameter
(or is bound from one: `self.model = model`, or made by a factory handed in:
`model = make_net()`) is placed by its caller, often in another module, so it stays silent
here; so are a network that a `nn.Module` subclass keeps (`self.network = ...` in
its methods: it moves with the instance, which its owner places), a `copy.deepcopy(...)` (it is
where its original is), and modules built after `torch.set_default_device("cuda")` or
`torch.set_default_tensor_type(torch.cuda.FloatTensor)` or inside `with torch.device("cuda"):`
(they start on the GPU). A model built on `meta` is placed by `to_empty(device=...)`; one
returned by a helper of this file is placed when the helper moves it or builds it in a device
context; one made by a function of another module that is handed the device
(`load_model(path, device)`) is taken to be placed there. `torch.cuda.device(i)` only picks the
GPU and places nothing. A program whose devices are all another accelerator (MPS, XLA) is not
a CUDA program, and the rule stays silent there. In LibTorch
C++ the model is a `torch::nn::Module` or a `ModuleHolder` never sent through `->to(device)` /
`.to(torch::kCUDA)`; one passed into the training function is judged by what the file's calls
pass for it, and stays silent when no call in the file says.

## Why is this bad
The parameters stay in host memory. Either the first step fails with a device-mismatch error,
or, when the inputs end up on the CPU too, the whole forward and backward pass runs on the CPU
while the GPU idles.

## Example
```python
device = torch.device("cuda")
model = Net()
optimizer = torch.optim.AdamW(model.parameters())
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
device = torch.device("cuda")
model = Net().to(device)  # before the optimizer is built from its parameters
optimizer = torch.optim.AdamW(model.parameters())
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```
)md";

// The model's call in a training step loop, if any.
const StepEvent* training_call(const StepModel& m, const Model& model) {
  for (const StepEvent& event : m.events) {
    if (event.kind != StepEventKind::ModelCall || event.name != model.name) continue;
    StepContext context = m.step_context(event.scope);
    if (context.loop >= 0 && m.loops[context.loop].kind == LoopKind::Training) return &event;
  }
  return nullptr;
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  if (!m.cuda_context() || m.framework_gpu) return;
  for (const Model& model : m.models) {
    if (model.moved || model.passed_in) continue;
    const StepEvent* call = training_call(m, model);
    if (call == nullptr) continue;
    bool defined_here = model.defined.end > model.defined.begin;
    sink.report({defined_here ? model.defined : call->span,
                 "`" + model.name +
                     "` runs in the training loop on batches moved to the GPU, but is never "
                     "moved there itself",
                 {{call->span, "called in the training loop here"}},
                 {}});
  }
}

}  // namespace

extern const Rule GL302 = {
    {"GL302", "model-not-moved", "placement", "Trained model never moved to the GPU",
     "move it before building the optimizer: `model = Net().to(device)`",
     "move it before building the optimizer: `model->to(device);`", kDocs, true, Severity::Warning},
    check,
    {"placement", "gemm.cpu", "gemm.gpu", "a {cpu_gemm} fp32 GEMM on the CPU instead of the GPU"},
    shape::kIdle | shape::kSpikeThenZero};

}  // namespace gpulint::rules
