#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a code in a suppression comment (`# gpulint: ignore[...]`, `# gpulint: file-ignore[...]`,
`# noqa: GL...`, `// NOLINT(gpulint-GL...)`) that names no gpulint rule: a typo such as
`GL1O1`, a code that does not exist (`GL999`), or another tool's code inside gpulint's own
comment. A code names a rule when it is one, or a prefix of one (`GL1` names the sync family).

## Why is this bad
The comment suppresses nothing and says nothing: the finding it was written for is still
reported (or, worse, the comment was meant for a finding that a typo now leaves unsuppressed
and nobody notices why).

## Example
```python
total += loss.item()  # gpulint: ignore[GL1O1]
```

## Use instead
```python
total += loss.item()  # gpulint: ignore[GL101]
```
)md";

// The engine reports GL002, judging each code against the whole rule table.
void check(const RuleInput&, Sink&) {}

}  // namespace

extern const Rule GL002 = {{"GL002",
                            "unknown-suppression-code",
                            "meta",
                            "Suppression comment names no gpulint rule",
                            "name a gpulint rule (`gpulint rules` lists them) or remove the code",
                            {},
                            kDocs,
                            true,
                            Severity::Warning,
                            Precision::High,
                            RuleKind::SuppressionCodes},
                           check};

}  // namespace gpulint::rules
