#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Opt-in. Flags `.to(device)` / `.cuda()` of a batch without `non_blocking=True` when every
`DataLoader` the loop iterates pins its memory (`pin_memory=True`).

## Why is this bad
The batch is already in pinned memory, so the copy could be queued on the stream and overlap
the rest of the step. Without `non_blocking=True` the host waits for each copy to finish
before it launches anything else.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to(device), y.to(device)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
```
)md";

bool pinned(const Loader& loader) { return loader.pin_memory.known() && loader.pin_memory.number; }

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  for (const BatchMove& move : m.batch_moves) {
    if (move.non_blocking || move.loop < 0) continue;
    const std::vector<int32_t>& loaders = m.loops[move.loop].loaders;
    if (loaders.empty() || !std::all_of(loaders.begin(), loaders.end(),
                                        [&](int32_t index) { return pinned(m.loaders[index]); })) {
      continue;
    }
    sink.report({move.span,
                 "pinned batch copied without `non_blocking=True`: the host waits for the copy "
                 "instead of queueing it",
                 {},
                 {}});
  }
}

}  // namespace

extern const Rule GL205 = {{"GL205",
                            "blocking-copy-in-loop",
                            "data",
                            "Pinned batch copied synchronously",
                            "copy with `.to(device, non_blocking=True)`",
                            {},
                            kDocs,
                            false,
                            Severity::Warning},
                           check,
                           {"transfer", "host.pinned_sync", "host.pinned_async",
                            "host blocked in a blocking copy of a pinned batch"},
                           0};

}  // namespace gpulint::rules
