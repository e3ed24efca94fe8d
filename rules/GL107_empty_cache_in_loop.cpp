#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `torch.cuda.empty_cache()` inside a training or evaluation step loop, or a helper it
calls every step, unless an interval guard limits it to some steps.

## Why is this bad
`empty_cache()` hands the caching allocator's free blocks back to the driver. The next step
allocates them again with `cudaMalloc`, and both `cudaFree` and `cudaMalloc` synchronise the
device. It does not give your program more memory: PyTorch would have reused those blocks.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()
```

## Use instead
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
torch.cuda.empty_cache()  # once, after training, if another process needs the memory
```
)md";

void check(const RuleInput& in, Sink& sink) {
  report_per_step_syncs(in, sink, {SyncKind::EmptyCache},
                        "frees cached GPU memory that the next step re-allocates, synchronising "
                        "the device every step");
}

}  // namespace

extern const Rule GL107 = {
    {"GL107", "empty-cache-in-loop", "sync", "CUDA cache emptied every step",
     "remove it from the loop; let the caching allocator reuse memory",
     "remove `emptyCache()` from the loop; let the caching allocator reuse memory", kDocs, true,
     Severity::Warning},
    check,
    {"dynamic", "alloc.free_malloc", "alloc.reuse",
     "cudaFree + cudaMalloc of {alloc_buffers} batch-sized buffers every step, vs reuse"},
    shape::kFlatLow};

}  // namespace gpulint::rules
