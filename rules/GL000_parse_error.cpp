#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Reports, once per file, that the file could not be parsed cleanly, at the first error.

## Why is this bad
Code after a syntax error may be misread, so other findings in the file can be incomplete.
gpulint still analyses everything the parser could recover.

In C++, GL000 reports what Clang reports for a file a compile database lists. Without one,
C++ is read by tree-sitter-cpp, which cannot expand macros (`QT_BEGIN_NAMESPACE`,
`TORCH_ARG(...)`) and misreads some valid syntax (default arguments `= {}`): code the compiler
accepts is not an error, so GL000 stays silent there and the run's note counts those files.

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
  const auto& errors = in.model.parse_errors;
  const auto first =
      std::find_if(errors.begin(), errors.end(), [](const ParseError& e) { return e.in_source; });
  if (first == errors.end()) return;
  std::string message = first->message;
  const auto more =
      std::count_if(first + 1, errors.end(), [](const ParseError& e) { return e.in_source; });
  if (more > 0) message += " (and " + std::to_string(more) + " more)";
  sink.report({first->span, message + "; findings in this file may be incomplete", {}, {}});
}

}  // namespace

extern const Rule GL000 = {
    {"GL000",
     "parse-error",
     "meta",
     "The file could not be parsed cleanly",
     "fix the syntax error (or flatten the deepest nesting); gpulint analysed what it could parse",
     {},
     kDocs,
     true,
     Severity::Error,
     Precision::High,
     RuleKind::Syntax},
    check};

}  // namespace gpulint::rules
