#include "rules/common.h"

#include <algorithm>

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a loader batch that reaches the model (or the loss) inside a step loop without `.to(...)`
or `.cuda()` on the way, in a program that moves its model to a GPU.

Where the loop moves some parts of a batch by hand and passes another part to the model as it
came, that part is taken for what multimodal and sequence code passes that way (captions and
questions as strings the model tokenizes, ids, lengths): it is reported only when the loop
moves it elsewhere too, which shows it is a tensor, or when it reaches the loss.

Batches of a dataset that moves its items as it reads them are on the device already: a
dataset class whose `__getitem__` moves them, or, in a file that builds MONAI's `ToDeviced`
(or `ToDevice`) transform for a GPU, the file's datasets (which of them the transform serves is
not followed).

A name rebound to a fresh instance after its model was moved (`net = Net()` to evaluate saved
weights) holds a model on the CPU until it is moved in its turn: its batches need no move, and
what it computes is on the host.

## Why is this bad
Either the step fails with a device-mismatch error, or, when the model is on the CPU after
all, the whole step silently runs on the CPU.

## Example
```python
model = Net().to(device)
for x, y in loader:
    loss = criterion(model(x), y)
```

## Use instead
```python
model = Net().to(device)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = criterion(model(x), y)
```
)md";

bool prepared_elsewhere(const StepModel& model, const Loop& loop) {
  return std::any_of(loop.loaders.begin(), loop.loaders.end(), [&](int32_t i) {
    return model.loaders[i].dataset_on_device || model.loaders[i].handed_to_trainer;
  });
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  if (!m.cuda_context() || m.moved_models.empty() || m.framework_gpu) return;
  for (const UnmovedInput& input : m.unmoved_inputs) {
    const Loop& loop = m.loops[input.loop];
    if (loop.kind != LoopKind::Training && loop.kind != LoopKind::Evaluation) continue;
    if (prepared_elsewhere(m, loop)) continue;
    if (input.others_moved && !input.into_loss) continue;
    sink.report({input.span,
                 "`" + input.name + "` comes from the loader on the CPU and reaches `" +
                     input.model + "` without `.to(device)`",
                 {},
                 {}});
  }
}

}  // namespace

extern const Rule GL301 = {
    {"GL301", "data-not-moved", "placement", "Batch used on the CPU while the model is on the GPU",
     "move the batch first: `x = x.to(device, non_blocking=True)`",
     "move the batch first: `auto data = batch.data.to(device, /*non_blocking=*/true);`", kDocs,
     true, Severity::Warning},
    check,
    {"placement", "gemm.cpu", "gemm.gpu", "a {cpu_gemm} fp32 GEMM on the CPU instead of the GPU"},
    shape::kSpikeThenZero,
    evidence::kHostWork};

}  // namespace gpulint::rules
