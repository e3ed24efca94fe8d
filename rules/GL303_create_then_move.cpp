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

void check(const RuleInput& in, Sink& sink) {
  for (const FactoryMove& fm : in.model.factory_moves) {
    // LibTorch's TensorOptions converts from a device, so C++ passes it positionally.
    const bool cpp = in.model.language == Language::Cpp;
    std::optional<Edit> edit = fm.factory_args.append(cpp ? fm.device : "device=" + fm.device);
    std::optional<Fix> fix;
    if (edit) {
      fix = Fix{"pass `device=` to the factory",
                Applicability::Safe,
                {std::move(*edit), Edit{fm.move, ""}}};
    }
    Finding f{fm.span,
              "`" + fm.factory_name + "(...)` is filled on the CPU and then copied to the GPU",
              {},
              std::move(fix)};
    // rand, randn, randint and randperm draw random numbers on the host, which costs more
    // than writing a constant or a range.
    const size_t cut = fm.factory_name.find_last_of(".:");
    const std::string_view tail = std::string_view(fm.factory_name).substr(cut + 1);
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
