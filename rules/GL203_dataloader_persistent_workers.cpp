#include <algorithm>
#include <string>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Opt-in. Flags a `DataLoader` with `num_workers > 0` and without `persistent_workers=True` that
is iterated in a loop which itself runs many times (inside an epoch loop, or in a
train-one-epoch function called from one). Values gpulint cannot resolve stay silent.
The fix (`persistent_workers=True`) is unsafe: kept workers keep the dataset object they were
started with and their random state, so changes the main process makes to the dataset between
epochs no longer reach them, and each epoch's random augmentations differ.

## Why is this bad
Without persistent workers, every `for batch in loader` starts a fresh set of worker processes
and tears them down at the end. Each epoch begins with the GPU idle while the workers start,
re-import the dataset and fill their prefetch queues.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for epoch in range(epochs):
    for x, y in loader:
        train_step(x, y)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True,
                    persistent_workers=True)
for epoch in range(epochs):
    for x, y in loader:
        train_step(x, y)
```
)md";

bool iterated_repeatedly(const StepModel& m, int32_t index) {
  for (size_t loop = 0; loop < m.loops.size(); ++loop) {
    const std::vector<int32_t>& loaders = m.loops[loop].loaders;
    if (std::find(loaders.begin(), loaders.end(), index) != loaders.end() &&
        m.repeated(static_cast<int32_t>(loop))) {
      return true;
    }
  }
  return false;
}

void check(const RuleInput& in, Sink& sink) {
  if (!judged_as_training_code(in)) return;
  const StepModel& m = in.model;
  if (!m.cuda_context()) return;
  for (size_t i = 0; i < m.loaders.size(); ++i) {
    const Loader& loader = m.loaders[i];
    const Value& w = loader.num_workers;
    const Value& p = loader.persistent_workers;
    bool off = p.known() && p.number == 0;
    if (!(w.known() && w.number > 0)) continue;
    if (!(off || (p.absent() && !loader.splat_unknown))) continue;
    if (!iterated_repeatedly(m, static_cast<int32_t>(i))) continue;
    std::optional<Edit> edit =
        off ? Edit{p.span, "True"} : loader.arguments.append("persistent_workers=True");
    std::optional<Fix> fix;
    // Workers kept across epochs keep their copy of the dataset and their random state: a
    // dataset changed between epochs, or the next epoch's augmentations, differ.
    if (edit) fix = Fix{"set `persistent_workers=True`", Applicability::Unsafe, {std::move(*edit)}};
    const std::string workers = std::to_string(w.number);
    sink.report({loader.call,
                 off ? "DataLoader with `persistent_workers=False` re-spawns its " + workers +
                           " workers every epoch"
                     : "DataLoader with `num_workers=" + workers +
                           "` re-spawns its workers every epoch: `persistent_workers=True` is "
                           "missing",
                 {},
                 std::move(fix)});
  }
}

}  // namespace

extern const Rule GL203 = {{"GL203",
                            "dataloader-persistent-workers",
                            "data",
                            "DataLoader workers re-spawned every epoch",
                            "pass `persistent_workers=True`",
                            {},
                            kDocs,
                            false,
                            Severity::Warning},
                           check,
                           {},
                           shape::kSawTooth};

}  // namespace gpulint::rules
