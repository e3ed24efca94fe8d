#include <string>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a `DataLoader` that feeds a training file's step loops (or a framework trainer) with a
literal `batch_size` below 8, or with no `batch_size` at all (the default is 1). Loaders with a
`batch_sampler`, and values gpulint cannot resolve, stay silent; so does `batch_size=1` with a
`collate_fn` that returns the one item it is given (`lambda items: items[0]`, or a function or
class of the project that does so): the dataset's items are whole batches then.

## Why is this bad
A step over a handful of samples launches kernels too small to fill the GPU's streaming
multiprocessors: the step time is dominated by kernel-launch and Python overhead, and the GPU
idles between launches.

## Example
```python
loader = DataLoader(dataset, shuffle=True, num_workers=8, pin_memory=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  const int64_t threshold = in.options.small_batch_threshold;
  for (const Loader& loader : m.loaders) {
    if (loader.batch_sampler || loader.splat_unknown || loader.items_are_batches) continue;
    const Value& b = loader.batch_size;
    bool small = b.known() && b.number < threshold;
    if (!(b.absent() || small) || !m.loader_in_training_file(loader)) continue;
    Finding f{loader.call,
              small ? "DataLoader with `batch_size=" + std::to_string(b.number) +
                          "` launches kernels too small to fill the GPU"
                    : std::string("DataLoader without `batch_size` yields one sample per step "
                                  "(the default is 1)"),
              {},
              {}};
    // DataLoader's default is 1; a size of 0 or less is a bug, not a cost to measure.
    const int64_t size = small ? b.number : 1;
    if (size > 0) f.parameters.emplace_back("batch_size", size);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL206 = {
    {"GL206", "small-batch-size", "data", "DataLoader batches too small to fill the GPU",
     "raise `batch_size` (accumulate gradients if memory is the limit)",
     "raise `.batch_size(n)` (accumulate gradients if memory is the limit)", kDocs, true,
     Severity::Warning},
    check,
    {"loading", "batch.b{batch}", "batch.b{reference_batch}",
     "samples/s at batch {batch} vs {reference_batch}"},
    shape::kFlatLow};

}  // namespace gpulint::rules
