#include <optional>
#include <string>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags the deprecated device-specific AMP entry points: `torch.cuda.amp.autocast(...)`,
`torch.cuda.amp.GradScaler(...)` and `torch.cpu.amp.*`, whether called by their full name or
imported from those modules. Silent where the old API is the fallback for an old torch: in a
branch or conditional expression chosen by the torch version (`if TORCH_GE_2_4:`, `... if
hasattr(torch, "amp") else torch.cuda.amp.GradScaler()`) or in a `try:` that falls back on
`ImportError` or `AttributeError`; rewriting it there would undo the guard. A name imported from
them in an `except` handler (`try: from torch.amp import GradScaler` / `except ImportError: from
torch.cuda.amp import GradScaler`) is the fallback's, and its uses are the current API's.

## Why is this bad
They are thin deprecated wrappers around `torch.amp`: every call emits a `FutureWarning`, and
they will be removed. `torch.amp.autocast(device_type, ...)` and
`torch.amp.GradScaler(device)` do the same work and name the device explicitly.

## Example
```python
scaler = torch.cuda.amp.GradScaler()
for x, y in loader:
    with torch.cuda.amp.autocast(dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
```

## Use instead
```python
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.amp.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
```
)md";

// The device a dotted spelling names: `torch.cuda.amp.autocast` -> "cuda"; empty for a bare name.
std::string_view device_of(std::string_view spelling) {
  if (spelling.find("cuda.amp.") != std::string_view::npos) return "cuda";
  if (spelling.find("cpu.amp.") != std::string_view::npos) return "cpu";
  return {};
}

std::string_view tail_of(std::string_view spelling) {
  size_t dot = spelling.rfind('.');
  return dot == std::string_view::npos ? spelling : spelling.substr(dot + 1);
}

// `torch.cuda.amp.autocast(enabled=x)` -> `torch.amp.autocast("cuda", enabled=x)`. Only for the
// full `torch.` spelling (an alias may not have `torch.amp` in reach), and, for autocast, only
// with keyword arguments: its positional parameters differ between the two APIs.
std::optional<Fix> rename_fix(const ApiUse& use, std::string_view device, std::string_view tail) {
  if (use.written != "torch." + std::string(device) + ".amp." + std::string(tail)) {
    return std::nullopt;
  }
  const ArgumentList& args = use.arguments;
  if (!args.known || (tail == "autocast" && !args.only_keywords())) return std::nullopt;
  std::string device_arg = "\"" + std::string(device) + "\"";
  if (!args.items.empty()) device_arg.append(", ");
  const uint32_t at = args.items.empty() ? args.parens.begin + 1 : args.items.front().span.begin;
  Fix fix{"use `torch.amp." + std::string(tail) + "(\"" + std::string(device) + "\", ...)`",
          Applicability::Safe,
          {{use.callee, "torch.amp." + std::string(tail)}, {{at, at}, std::move(device_arg)}}};
  return fix;
}

// The module a bare name was imported from: `from torch.cuda.amp import autocast`.
std::string imported_from(const StepModel& m, std::string_view local) {
  for (const Import& imp : m.imports) {
    if (imp.local == local && !imp.symbol.empty()) return imp.module;
  }
  return "torch.cuda.amp";  // the front end records bare names only from these imports
}

void check(const RuleInput& in, Sink& sink) {
  for (const ApiUse& use : in.model.api_uses) {
    // `torch.amp.GradScaler("cuda") if TORCH_GE_2_3 else torch.cuda.amp.GradScaler()`: the
    // old API is the fallback for an old torch, where the new one does not exist.
    if (use.kind != ApiKind::DeprecatedAmp || use.version_guarded) continue;
    const std::string tail(tail_of(use.spelling));
    std::string_view device = device_of(use.spelling);
    std::string named = "`" + use.spelling + "`";
    if (device.empty()) {
      const std::string module = imported_from(in.model, use.spelling);
      device = device_of(module + ".");
      named += " from `" + module + "`";
    }
    sink.report({use.span,
                 named + " is deprecated: use `torch.amp." + tail + "(\"" + std::string(device) +
                     "\", ...)`",
                 {},
                 rename_fix(use, device, tail)});
  }
}

}  // namespace

extern const Rule GL402 = {
    {"GL402",
     "deprecated-cuda-amp",
     "precision",
     "Deprecated `torch.cuda.amp` / `torch.cpu.amp` API",
     "use `torch.amp.autocast(\"cuda\", ...)` and `torch.amp.GradScaler(\"cuda\")`",
     {},
     kDocs,
     true,
     Severity::Warning},
    check};

}  // namespace gpulint::rules
