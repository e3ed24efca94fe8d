#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a CUDA autocast region in float16 (`dtype=torch.float16`, or no `dtype`: CUDA autocast
defaults to float16) that runs in training — inside a training step loop or a per-step training
hook (not `validation_step`, `test_step` or `predict_step`, which run no backward, and not under
`no_grad` or `inference_mode`, a block or the function's decorator), or around a training loop —
in a file that never constructs a `GradScaler` and never scales a
loss with one (`scaler.scale(loss)` on a scaler passed in from another module counts). Frameworks that
scale the loss themselves (Lightning, accelerate, the Hugging Face `Trainer`) stay silent.

## Why is this bad
float16 has a narrow exponent range: small gradients underflow to zero in the backward pass
and the model silently stops learning, or the loss turns into NaN. This is a correctness
problem before it is a speed one. bfloat16 has float32's range and needs no scaler.

## Example
```python
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
```
)md";

// The region runs a training step: it sits in a training loop or hook, or wraps one. Under
// no_grad or inference_mode (a block, or the function's decorator) nothing has gradients.
bool in_training(const StepModel& m, const Autocast& a) {
  for (ScopeId s = a.scope; s != kNoScope; s = m.scopes[s].parent) {
    if (m.scopes[s].regions & kRegionNoGrad) return false;
  }
  StepContext context = m.step_context(a.scope);
  if (context.hook) return context.training_hook;
  if (context.external) return context.external->training;
  if (context.loop >= 0 && m.loops[context.loop].kind == LoopKind::Training) return true;
  return std::any_of(m.loops.begin(), m.loops.end(), [&](const Loop& loop) {
    if (loop.kind != LoopKind::Training) return false;
    for (ScopeId s = loop.scope; s != kNoScope; s = m.scopes[s].parent) {
      if (s == a.body) return true;
    }
    return false;
  });
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  if (!m.cuda_context() || m.framework_gpu) return;
  if (std::any_of(m.api_uses.begin(), m.api_uses.end(),
                  [](const ApiUse& use) { return use.kind == ApiKind::GradScaler; })) {
    return;
  }
  for (const Autocast& a : m.autocasts) {
    if (a.cpu || (a.dtype != AmpDtype::Float16 && a.dtype != AmpDtype::Default)) continue;
    if (!in_training(m, a)) continue;
    sink.report({a.span,
                 a.dtype == AmpDtype::Float16
                     ? "float16 autocast in training without a `GradScaler`: small gradients "
                       "underflow to zero"
                     : "autocast without `dtype` trains in float16 on CUDA, and no `GradScaler` "
                       "keeps small gradients from underflowing to zero",
                 {},
                 {}});
  }
}

}  // namespace

extern const Rule GL403 = {
    {"GL403",
     "fp16-without-grad-scaler",
     "precision",
     "float16 training without loss scaling",
     "scale the loss with `torch.amp.GradScaler(\"cuda\")`, or autocast to `torch.bfloat16`",
     {},
     kDocs,
     true,
     Severity::Warning},
    check,
    {"precision", "gemm.fp16", "gemm.bf16", "BF16 (no GradScaler needed) against FP16, {gemm}"},
    0};

}  // namespace gpulint::rules
