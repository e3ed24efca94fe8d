#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a `DataLoader` that feeds a training file's step loops (or a framework trainer) with
`num_workers` absent or `0`. Literals resolve, and so do module constants (`WORKERS = 0`),
class-level constants of a top-level class (`CFG.num_workers` after `class CFG: num_workers =
0`) and `**dict(...)` options. Values gpulint cannot resolve (`num_workers=args.workers`, a
class constant some function reassigns) stay silent.

A loader whose dataset hands out tensors already on the GPU (its `__getitem__` returns
`x.cuda()`) is reported without a fix: its items are made on the GPU in the training process,
and worker processes would have to use CUDA after a fork, which fails. Move the `.cuda()` out of
the dataset, into the step, first.

## Why is this bad
With no workers, loading, decoding and augmentation run in the training process between
steps. The GPU waits for every batch: utilisation becomes a saw-tooth.

## Example
```python
loader = DataLoader(dataset, batch_size=64, shuffle=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8,
                    pin_memory=True, persistent_workers=True)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  if (!in.model.cuda_context()) return;
  for (const Loader& loader : in.model.loaders) {
    const Value& w = loader.num_workers;
    bool zero = w.known() && w.number == 0;
    if (!(w.absent() || zero) || !in.model.loader_in_training_file(loader)) continue;
    const bool cpp = in.model.language == Language::Cpp;
    std::optional<Fix> fix =
        Fix{cpp ? "set `.workers(4)`" : "set `num_workers=4`", Applicability::Unsafe, {}};
    if (zero) {
      fix->edits.push_back({w.span, "4"});
    } else if (!cpp) {
      if (std::optional<Edit> e = loader.arguments.append("num_workers=4")) {
        fix->edits.push_back(std::move(*e));
      } else {
        fix.reset();
      }
    } else if (loader.spelling.ends_with("DataLoaderOptions")) {
      fix->edits.push_back({{loader.call.end, loader.call.end}, ".workers(4)"});
    } else {
      fix.reset();  // `make_data_loader(ds, 64)` needs options built around its batch size
    }
    if (loader.dataset_on_device) fix.reset();
    sink.report({loader.call,
                 zero
                     ? "DataLoader with `num_workers=0` loads every batch in the training process"
                     : "DataLoader without `num_workers` loads every batch in the training process",
                 {},
                 std::move(fix)});
  }
}

}  // namespace

extern const Rule GL201 = {
    {"GL201", "dataloader-num-workers", "data", "DataLoader loads batches in the training process",
     "set `num_workers` to a few workers per GPU (and `persistent_workers=True`)",
     "set `.workers(n)` on the `DataLoaderOptions`, a few workers per GPU", kDocs, true,
     Severity::Warning},
    check,
    {"loading", "loader.inline", "loader.workers",
     "preprocessing inline vs {workers} producer threads"},
    shape::kSawTooth};

}  // namespace gpulint::rules
