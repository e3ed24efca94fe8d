#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `.to(device, non_blocking=True)` / `.cuda(non_blocking=True)` of a batch from a
`DataLoader` whose `pin_memory` is absent or `False`, in a program that uses CUDA. Loaders
gpulint cannot trace, and `pin_memory` values it cannot resolve, stay silent.

## Why is this bad
A host-to-device copy can only run asynchronously from page-locked (pinned) memory. From
pageable memory the driver stages the batch through a bounce buffer and the call returns only
when the copy is done: `non_blocking=True` silently does nothing, and the copy cannot overlap
compute.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
```
)md";

bool unpinned(const Loader& loader) {
  const Value& p = loader.pin_memory;
  return (p.absent() && !loader.splat_unknown) || (p.known() && p.number == 0);
}

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  for (const BatchMove& move : m.batch_moves) {
    if (!move.non_blocking || move.loop < 0) continue;
    for (int32_t index : m.loops[move.loop].loaders) {
      const Loader& loader = m.loaders[index];
      if (!unpinned(loader)) continue;
      sink.report({move.span,
                   "`non_blocking=True` has no effect here: the batch comes from a DataLoader "
                   "without `pin_memory=True`, so the copy is synchronous",
                   {{loader.call, "the DataLoader that yields pageable batches"}},
                   {}});
      break;
    }
  }
}

}  // namespace

extern const Rule GL204 = {
    {"GL204",
     "non-blocking-without-pin",
     "data",
     "`non_blocking=True` copy from pageable memory",
     "pass `pin_memory=True` to the DataLoader so the copy can run asynchronously",
     {},
     kDocs,
     true,
     Severity::Warning},
    check,
    {"transfer", "host.pageable_async", "host.pinned_async",
     "host blocked in a non_blocking copy from pageable memory"},
    shape::kSawTooth};

}  // namespace gpulint::rules
