#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
In a program that uses CUDA, flags a `DataLoader` feeding a training file's step loops with
`pin_memory` absent or `False`. Values gpulint cannot resolve stay silent, and so does a loader
whose dataset hands out tensors already on the GPU (its `__getitem__` returns `x.cuda()`, or
it was built from moved tensors): only host memory can be pinned, and `pin_memory=True` there
raises an error.

## Why is this bad
Batches in pageable host memory are staged through a driver bounce buffer: host-to-device
copies run slower and cannot overlap compute, even with `non_blocking=True`.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8)
for x, y in loader:
    x = x.to(device, non_blocking=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x = x.to(device, non_blocking=True)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  if (!in.model.cuda_context()) return;
  for (const Loader& loader : in.model.loaders) {
    const Value& p = loader.pin_memory;
    bool off = p.known() && p.number == 0;
    if (!(p.absent() || off) || !in.model.loader_in_training_file(loader)) continue;
    if (loader.dataset_on_device) continue;
    std::optional<Edit> edit =
        off ? Edit{p.span, "True"} : loader.arguments.append("pin_memory=True");
    std::optional<Fix> fix;
    if (edit) fix = Fix{"set `pin_memory=True`", Applicability::Safe, {std::move(*edit)}};
    sink.report({loader.call,
                 off ? "DataLoader with `pin_memory=False` copies batches from pageable memory"
                     : "DataLoader without `pin_memory=True` copies batches from pageable memory",
                 {},
                 std::move(fix)});
  }
}

}  // namespace

extern const Rule GL202 = {{"GL202",
                            "dataloader-pin-memory",
                            "data",
                            "DataLoader batches are not in pinned memory",
                            "pass `pin_memory=True` and copy with `.to(device, non_blocking=True)`",
                            {},
                            kDocs,
                            true,
                            Severity::Warning},
                           check,
                           {"transfer", "h2d.pageable", "h2d.pinned",
                            "a {batch_shape} fp32 batch copied from pageable memory"},
                           shape::kSawTooth};

}  // namespace gpulint::rules
