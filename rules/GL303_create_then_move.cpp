#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a fill factory (`torch.zeros`, `ones`, `empty`, `full`, `rand`, `randn`, `randint`,
`randperm`, `arange`, `linspace`, `logspace`, `eye`) whose result is moved to the GPU right
away with `.cuda()` or `.to(device)`. Data-carrying constructors (`torch.tensor`,
`as_tensor`, `from_numpy`) copy either way and stay silent. The `*_like` factories
(`zeros_like`, `ones_like`, `rand_like`, `randn_like`) fill on their input's device, so they
count only when that input is known to be on the host (a batch never moved, a tensor made
there).
The fix passes `device=` to the factory. It is safe for constant fills (`zeros`, `ones`,
`full`, `empty`, `eye`); for random draws and computed ranges it is unsafe, since the GPU's
generator draws other numbers than the host's and a range may round differently there. A
factory given its own `generator=` gets no fix: a CPU generator cannot fill on the GPU.

## Why is this bad
The tensor is filled on the CPU, then copied over the link, instead of being filled on the
device by one kernel.

## Example
```python
mask = torch.zeros(batch, seq_len).to(device)
```

## Use instead
```python
mask = torch.zeros(batch, seq_len, device=device)
```
)md";

// Fills whose values do not depend on where they are made: the same bits on either device.
bool same_values_on_device(std::string_view factory) {
  static constexpr std::string_view kExact[] = {"zeros",     "ones",      "full",
                                                "empty",     "eye",       "zeros_like",
                                                "ones_like", "full_like", "empty_like"};
  return std::find(std::begin(kExact), std::end(kExact), factory) != std::end(kExact);
}

void check(const RuleInput& in, Sink& sink) {
  for (const FactoryMove& fm : in.model.factory_moves) {
    const size_t cut = fm.factory_name.find_last_of(".:");
    const std::string_view tail = std::string_view(fm.factory_name).substr(cut + 1);
    // A generator fills on its own device: a CPU one cannot fill on the GPU, so `device=` would
    // raise.
    const bool own_generator =
        std::any_of(fm.factory_args.items.begin(), fm.factory_args.items.end(),
                    [](const Argument& a) { return a.keyword == "generator"; });
    // LibTorch's TensorOptions converts from a device, so C++ passes it positionally.
    const bool cpp = in.model.language == Language::Cpp;
    std::optional<Edit> edit = fm.factory_args.append(cpp ? fm.device : "device=" + fm.device);
    std::optional<Fix> fix;
    if (edit && !own_generator) {
      // The GPU's generator draws other numbers than the host's, and a range computed there may
      // round differently: only a constant fill is the same program.
      fix = Fix{"pass `device=` to the factory",
                same_values_on_device(tail) ? Applicability::Safe : Applicability::Unsafe,
                {std::move(*edit), Edit{fm.move, ""}}};
    }
    Finding f{fm.span,
              "`" + fm.factory_name + "(...)` is filled on the CPU and then copied to the GPU",
              {},
              std::move(fix)};
    // rand, randn, randint and randperm draw random numbers on the host, which costs more
    // than writing a constant or a range.
    f.parameters.emplace_back("random_fill", tail.starts_with("rand") ? 1 : 0);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL303 = {
    {"GL303", "create-then-move", "placement",
     "Tensor created on the CPU and moved to the GPU right away",
     "create it on the device: `torch.zeros(..., device=device)`",
     "create it on the device: `torch::zeros({n}, torch::TensorOptions().device(device))`", kDocs,
     true, Severity::Warning},
    check,
    {"placement", "fill.{fill_key}host_copy", "fill.{fill_key}device",
     "{fill} filled on the host and copied, vs filled on the device"},
    0,
    evidence::kHostWork};

}  // namespace gpulint::rules
