#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a training step loop, in a program that uses CUDA, whose forward pass runs with no mixed
precision in effect: no `torch.autocast` / `torch.amp.autocast` region (or a context manager
that resolves to one), no `accelerator.autocast()`, no framework precision setting (a DeepSpeed
configuration written in the file counts when its `fp16`, `bf16` or `amp` section is enabled
by anything but a literal `False`; one `deepspeed.initialize` reads from a path or the command
line is unknown, and may be), no weights loaded in reduced precision
(`from_pretrained(..., dtype=...)` of anything but FP32, a bitsandbytes-quantized load), no FSDP mixed precision (`MixedPrecisionPolicy` or
`MixedPrecision` with a `param_dtype` other than FP32; one from a variable may be reduced), no
precision switch handed to a call (`use_fp16=`, `bf16=`, `amp=`, `mixed_precision=` and the
like, on a project's own trainer too) that is not literally off (`False`, `None`, `0`, `"no"`):
one set from a variable may be on, no
`accelerator.backward(loss)` on an Accelerator built in another module (its precision is
unknown here), and no model converted to half or bfloat16 (whole, or a module at a time:
`for m in self.modules(): m.half()`). Programs whose devices are all
another accelerator (MPS, XLA) are not CUDA programs and stay silent.
Reported once, at the innermost training loop's header.
A loop that only steps optimizers (`for opt, sched in zip(optimizers, schedulers)`) beside the
loop that runs the forward and backward runs no forward of its own: the other loop is judged.
Inside the step loop, such a loop is judged by the step loop's forward, and reported there.
A framework's per-step training hook (Lightning `training_step`, a Hugging Face `Trainer`'s
`compute_loss`) counts as a training loop when the framework trainer is built in the same file
on a GPU, so its precision setting is known; it is reported at the hook's name. A Hugging Face
`Trainer` (a class whose base is named `...Trainer`; a `TrainerCallback` is none) takes its
precision from `args`: arguments built in the file are read, and ones from elsewhere (a
parameter, a command-line parser's result) may switch it on, so the hook stays silent.

## Why is this bad
FP32 matrix math does not use the tensor cores' fast paths; bf16 autocast typically speeds up
the matrix-heavy part of a step several-fold on Ampere and Hopper GPUs.

## Example
```python
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  const std::vector<int32_t> innermost = m.innermost_training_loops();
  const auto runs_forward = [&](int32_t loop) { return m.runs_forward(loop); };
  const bool forward_elsewhere = std::any_of(innermost.begin(), innermost.end(), runs_forward);
  for (int32_t innermost_loop : innermost) {
    // An optimizer loop inside the step loop is judged by the step loop's forward.
    const int32_t forward = m.forward_loop(innermost_loop);
    const int32_t loop = forward >= 0 ? forward : innermost_loop;
    if (m.amp_in_effect(loop) || (forward_elsewhere && forward < 0)) continue;
    sink.report(
        {m.loops[loop].header,
         "training loop runs in FP32: no autocast covers its forward pass, so matrix math skips "
         "the tensor cores",
         {},
         {}});
    return;
  }
  if (!m.innermost_training_loops().empty() || !m.framework_gpu || m.file_level_amp) return;
  // Any autocast in the file may be the one around the hook's forward: silence over noise.
  if (std::any_of(m.autocasts.begin(), m.autocasts.end(), [](const Autocast& a) { return !a.cpu; }))
    return;
  for (const Function& f : m.functions) {
    if (!f.per_step_hook || (f.name != "training_step" && f.name != "compute_loss")) continue;
    sink.report({f.name_span,
                 "`" + f.name +
                     "` trains in FP32: no autocast or framework precision setting covers its "
                     "forward pass, so matrix math skips the tensor cores",
                 {},
                 {}});
    return;
  }
}

}  // namespace

extern const Rule GL401 = {
    {"GL401", "missing-autocast", "precision", "Training loop without mixed precision",
     "wrap the forward pass in `torch.autocast(\"cuda\", dtype=torch.bfloat16)`",
     "run the forward pass under autocast: `at::autocast::set_enabled(true)` before it, "
     "`set_enabled(false)` and `at::autocast::clear_cache()` after",
     kDocs, true, Severity::Warning},
    check,
    {"precision", "gemm.fp32", "gemm.bf16", "a {gemm} GEMM in FP32 instead of BF16"},
    shape::kHealthy};

}  // namespace gpulint::rules
