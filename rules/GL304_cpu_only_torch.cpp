#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a dependency file (`requirements*.txt`, `pyproject.toml`, `setup.cfg`,
`environment.yml`) that installs a CPU-only PyTorch build: a `+cpu` local version
(`torch==2.3.0+cpu`), the CPU wheel index (`--index-url https://download.pytorch.org/whl/cpu`),
or conda's `cpuonly` package. A file that also names a CUDA wheel index (`.../whl/cu121`, uv
extras choosing between the two) offers both builds, and its CPU index stays silent.

## Why is this bad
A CPU-only build has no CUDA kernels: `torch.cuda.is_available()` returns False, and code
that picks `"cuda" if torch.cuda.is_available() else "cpu"` silently trains on the CPU while
the GPU sits idle.

## Example
```text
--index-url https://download.pytorch.org/whl/cpu
torch==2.3.0+cpu
```

## Use instead
```text
--index-url https://download.pytorch.org/whl/cu121
torch==2.3.0
```
)md";

void check(const RuleInput& in, Sink& sink) {
  for (const CpuTorchPin& pin : in.model.cpu_torch_pins) {
    sink.report({pin.span,
                 "`" + pin.spelling +
                     "` installs a CPU-only PyTorch build: `torch.cuda.is_available()` is False",
                 {},
                 {}});
  }
}

}  // namespace

extern const Rule GL304 = {
    {"GL304",
     "cpu-only-torch",
     "placement",
     "Dependency file pins a CPU-only PyTorch build",
     "install a CUDA build: drop `+cpu` / `cpuonly`, or use a `/whl/cu121`-style index",
     {},
     kDocs,
     true,
     Severity::Warning},
    check,
    {},
    shape::kIdle};

}  // namespace gpulint::rules
