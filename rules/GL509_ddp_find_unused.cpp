#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `DistributedDataParallel(..., find_unused_parameters=True)`.

## Why is this bad
With `find_unused_parameters=True`, DDP traverses the autograd graph from the outputs after every
forward pass to find the parameters that will get no gradient, and it cannot start the gradient
all-reduce of a bucket until it knows. For a model that uses all its parameters every step the
traversal is pure overhead.

## Example
```python
model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)
```

## Use instead
```python
model = DDP(model, device_ids=[local_rank])
# Only when some parameters really get no gradient in some steps:
# model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  for (const ApiUse& use : in.model.api_uses) {
    if (use.kind != ApiKind::FindUnusedParameters) continue;
    // Unsafe: a model that skips parameters in some steps then fails in backward.
    Fix fix{"set `find_unused_parameters=False`", Applicability::Unsafe, {{use.value, "False"}}};
    sink.report({use.span,
                 "`" + use.spelling +
                     "(..., find_unused_parameters=True)` traverses the autograd graph after "
                     "every forward pass",
                 {},
                 std::move(fix)});
  }
}

}  // namespace

extern const Rule GL509 = {
    {"GL509",
     "ddp-find-unused",
     "overhead",
     "DDP searches for unused parameters every step",
     "drop `find_unused_parameters=True` unless some parameters really get no gradient",
     {},
     kDocs,
     false,
     Severity::Warning},
    check};

}  // namespace gpulint::rules
