#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `zero_grad(set_to_none=False)` on an optimizer or a module.

## Why is this bad
With `set_to_none=False` every gradient is filled with zeros, one memset kernel per parameter
every step, and the next backward then reads those zeros to add to them. With `set_to_none=True`
(the default since PyTorch 2.0) the gradients are dropped and the backward writes fresh ones:
no memsets and less memory traffic.

## Example
```python
optimizer.zero_grad(set_to_none=False)
```

## Use instead
```python
optimizer.zero_grad()  # set_to_none=True is the default
```
)md";

void check(const RuleInput& in, Sink& sink) {
  for (const ApiUse& use : in.model.api_uses) {
    if (use.kind != ApiKind::ZeroGradKeep) continue;
    // Unsafe: code that reads `.grad` between zero_grad() and backward() then sees None.
    Fix fix{"set `set_to_none=True`", Applicability::Unsafe, {{use.value, "True"}}};
    sink.report({use.span,
                 "`" + use.spelling +
                     "()` with `set_to_none=False` fills every gradient with zeros, a memset "
                     "per parameter every step",
                 {},
                 std::move(fix)});
  }
}

}  // namespace

extern const Rule GL506 = {{"GL506",
                            "zero-grad-no-set-to-none",
                            "overhead",
                            "Gradients zeroed instead of set to None",
                            "call `zero_grad()` (set_to_none=True, the default)",
                            {},
                            kDocs,
                            true,
                            Severity::Warning},
                           check};

}  // namespace gpulint::rules
