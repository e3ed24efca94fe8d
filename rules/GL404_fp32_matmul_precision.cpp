#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags settings that keep FP32 matrix multiplies and convolutions off the TF32 tensor cores:
`torch.backends.cuda.matmul.allow_tf32 = False`, `torch.backends.cudnn.allow_tf32 = False` and
`torch.set_float32_matmul_precision("highest")`. When GL404 is selected explicitly
(`--select GL404`), it also flags a CUDA training loop that runs in FP32 with neither AMP nor
TF32 enabled, once per file, at the innermost training loop's header.

## Why is this bad
On Ampere and later GPUs, TF32 runs FP32 matrix math on the tensor cores with a 10-bit mantissa,
several times faster than full-precision FP32. With TF32 off, every `nn.Linear` and matmul of an
FP32 model takes the slow path; training rarely needs the extra precision.

## Example
```python
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
```

## Use instead
```python
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision("high")
```
)md";

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  bool tf32_set = false;
  for (const ApiUse& use : m.api_uses) {
    if (use.kind == ApiKind::Tf32Enabled) tf32_set = true;
    if (use.kind != ApiKind::Tf32Disabled) continue;
    tf32_set = true;
    const bool cudnn = use.spelling.find("cudnn") != std::string::npos;
    // C++ spells the whole call (`at::globalContext().setAllowTF32CuBLAS(false)`).
    const std::string setting = use.spelling.ends_with(")") ? use.spelling
                                : use.spelling.ends_with("allow_tf32")
                                    ? use.spelling + " = False"
                                    : use.spelling + "(\"highest\")";
    sink.report({use.span,
                 "`" + setting + "` keeps FP32 " + (cudnn ? "convolutions" : "matrix multiplies") +
                     " off the TF32 tensor cores",
                 {},
                 {}});
  }
  // The implicit form is noisy for code that wants bit-exact FP32, so only a user who asks
  // for it by name gets it; a file that sets TF32 either way has made its choice.
  if (!in.options.explicitly_selected || tf32_set || !m.cuda_context()) return;
  for (int32_t loop : m.innermost_training_loops()) {
    if (m.amp_in_effect(loop)) continue;
    sink.report({m.loops[loop].header,
                 "training loop runs FP32 matrix multiplies at full precision: neither AMP nor "
                 "TF32 is enabled",
                 {},
                 {}});
    return;
  }
}

}  // namespace

extern const Rule GL404 = {
    {"GL404", "fp32-matmul-precision", "precision",
     "FP32 matrix math kept off the TF32 tensor cores",
     "enable TF32: `torch.set_float32_matmul_precision(\"high\")` (or train under autocast)",
     "keep TF32 on: drop `setAllowTF32CuBLAS(false)` (or set it `true`)", kDocs, true,
     Severity::Warning},
    check,
    {"precision", "gemm.fp32", "gemm.tf32", "a {gemm} GEMM in full FP32 instead of TF32"},
    shape::kHealthy};

}  // namespace gpulint::rules
