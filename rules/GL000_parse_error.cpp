#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Reports, once per file, that the file could not be parsed cleanly, at the first error.

## Why is this bad
Code after a syntax error may be misread, so other findings in the file can be incomplete.
gpulint still analyses everything the parser could recover.

## Example
```python
for batch in loader
    loss = model(batch)
```

## Use instead
```python
for batch in loader:
    loss = model(batch)
```
)md";

void check(const RuleInput& in, Sink& sink) {
  if (in.model.parse_errors.empty()) return;
  const ParseError& first = in.model.parse_errors.front();
  std::string message = first.message;
  if (in.model.parse_errors.size() > 1) {
    message += " (and " + std::to_string(in.model.parse_errors.size() - 1) + " more)";
  }
  sink.report({first.span, message + "; findings in this file may be incomplete", {}, {}});
}

}  // namespace

extern const Rule GL000 = {
    {"GL000", "parse-error", "meta", "The file could not be parsed cleanly",
     "fix the syntax error (or flatten the deepest nesting); gpulint analysed what it could parse", kDocs, true, Severity::Error},
    check};

}  // namespace gpulint::rules
