#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `torch.cuda.synchronize()`, `stream.synchronize()` and `event.synchronize()` inside a step
loop that is not limited by an interval guard.

## Why is this bad
Synchronising drains the whole device every step: the host cannot queue the next step's
kernels until the last one finishes, so the GPU idles during every launch gap.

## Example
```python
for x, y in loader:
    start = time.time()
    train_step(x, y)
    torch.cuda.synchronize()
    times.append(time.time() - start)
```

## Use instead
```python
start_evt = torch.cuda.Event(enable_timing=True)
end_evt = torch.cuda.Event(enable_timing=True)
for step, (x, y) in enumerate(loader):
    if step % 100 == 0:
        start_evt.record()
    train_step(x, y)
    if step % 100 == 0:
        end_evt.record()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  report_per_step_syncs(in, sink, {SyncKind::Synchronize}, "drains the GPU every step");
}

}  // namespace

extern const Rule GL103 = {
    {"GL103", "synchronize-in-loop", "sync", "Device synchronisation every step",
     "remove the synchronize, or time with CUDA events every N steps",
     "remove `torch::cuda::synchronize()`, or time with `at::cuda::CUDAEvent`s every N steps",
     kDocs, true, Severity::Warning},
    check,
    {"sync", "{profile}.device_sync", "{profile}.pipelined",
     "cudaDeviceSynchronize every step, a {profile} step of {kernels} kernels"},
    shape::kFlatLow,
    evidence::kSynchronize};

}  // namespace gpulint::rules
