#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `.cpu()` and `.to("cpu")` inside a step loop that is not limited by an interval guard.
A tensor made on the host (`torch.zeros(n)` with no device, a batch never moved) copies nothing
and stays silent, as does code that runs only without CUDA (the `else` of
`if torch.cuda.is_available():`, the body of `if not torch.cuda.is_available():`).

## Why is this bad
A device-to-host copy blocks the host until all queued GPU work is done and the bytes have
crossed the link: the same stall as `.item()`, plus the transfer. The GPU then waits while the
CPU catches up.

## Example
```python
for x, y in loader:
    logits = model(x.to(device))
    all_preds.append(logits.argmax(1).cpu())
```

## Use instead
```python
preds = []
for x, y in loader:
    logits = model(x.to(device))
    preds.append(logits.argmax(1))
all_preds = torch.cat(preds).cpu()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  report_per_step_syncs(in, sink, {SyncKind::HostCopy}, "copies to the host and blocks every step");
}

}  // namespace

extern const Rule GL102 = {
    {"GL102", "host-copy-in-loop", "sync", "Device-to-host copy every step",
     "keep results on the GPU and copy them once after the loop (or every N steps)",
     "keep results on the GPU and call `.cpu()` once after the loop (or every N steps)", kDocs,
     true, Severity::Warning},
    check,
    {"sync", "{profile}.readback", "{profile}.pipelined",
     "a blocking device-to-host copy every step, a {profile} step of {kernels} kernels"},
    shape::kSpikeThenZero | shape::kFlatLow,
    evidence::kCopyToHost};

}  // namespace gpulint::rules
