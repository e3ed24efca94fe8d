#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Opt-in. Flags a suppression comment (`# gpulint: ignore[...]`, `# gpulint: file-ignore[...]`,
`# noqa: GL...`) that suppressed no finding in this run. Comments
naming a rule that is not enabled are not judged.

## Why is this bad
A stale suppression hides the next real finding on its line and tells readers a problem
exists where none does.

## Example
```python
total += loss.detach()  # gpulint: ignore[GL101]
```

## Use instead
```python
total += loss.detach()
```
)md";

// The engine reports GL001 once every other rule has run: only it knows which suppression
// comments were used.
void check(const RuleInput&, Sink&) {}

}  // namespace

extern const Rule GL001 = {{"GL001",
                            "unused-suppression",
                            "meta",
                            "Suppression comment that suppresses nothing",
                            "remove the comment",
                            {},
                            kDocs,
                            false,
                            Severity::Warning,
                            Precision::High,
                            RuleKind::Suppressions},
                           check};

}  // namespace gpulint::rules
