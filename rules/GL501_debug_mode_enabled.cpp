#include <vector>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags debugging switches left on in training code: `torch.autograd.set_detect_anomaly(True)`,
`with torch.autograd.detect_anomaly():`, `os.environ["CUDA_LAUNCH_BLOCKING"] = "1"`, and
`torch.autograd.profiler.profile()` / `emit_nvtx()` wrapping a whole training loop. The
`torch.profiler.profile(schedule=...)` profiler, made to sample a few steps, stays silent; in
Python so does a switch under a condition on a debugging option (`if args.debug:`), which is on
only when asked for.

## Why is this bad
Anomaly detection records a traceback for every forward op and checks every backward op's
output for NaN. `CUDA_LAUNCH_BLOCKING=1` makes every kernel launch wait until the kernel
finishes, so the CPU can never run ahead of the GPU. The legacy autograd profiler records every
op of every step. Each of them can slow training several-fold.

## Example
```python
torch.autograd.set_detect_anomaly(True)
with torch.autograd.profiler.profile() as prof:
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
```

## Use instead
```python
from torch.profiler import ProfilerActivity, profile, schedule

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
             schedule=schedule(wait=1, warmup=1, active=3, repeat=1)) as prof:
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        prof.step()
```
)md";

// True when `scope` lies inside `body`, directly or in a function called from inside it.
bool runs_inside(const StepModel& m, ScopeId scope, ScopeId body, std::vector<uint8_t>& seen) {
  for (ScopeId s = scope; s != kNoScope; s = m.scopes[s].parent) {
    if (s == body) return true;
    if (m.scopes[s].kind != ScopeKind::Function) continue;
    const int32_t fn = m.scopes[s].index;
    if (seen[fn]) return false;
    seen[fn] = 1;
    for (const Call& call : m.calls) {
      if (call.callee == fn && runs_inside(m, call.scope, body, seen)) return true;
    }
    return false;
  }
  return false;
}

bool wraps_training_loop(const StepModel& m, ScopeId body) {
  for (const Loop& loop : m.loops) {
    if (loop.kind != LoopKind::Training) continue;
    std::vector<uint8_t> seen(m.functions.size(), 0);
    if (runs_inside(m, loop.scope, body, seen)) return true;
  }
  return false;
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  for (const ApiUse& use : m.api_uses) {
    if (use.debug_guarded) continue;
    std::string message;
    switch (use.kind) {
      case ApiKind::DetectAnomaly:
        message = "`" + use.spelling +
                  "` turns on anomaly detection: every forward op records a traceback and every "
                  "backward op is checked for NaN";
        break;
      case ApiKind::LaunchBlocking:
        message =
            "`CUDA_LAUNCH_BLOCKING=1` makes every kernel launch wait until the kernel "
            "finishes";
        break;
      case ApiKind::AutogradProfiler:
        if (!wraps_training_loop(m, use.body)) continue;
        message =
            "`" + use.spelling + "` wraps the training loop: every op of every step is recorded";
        break;
      default:
        continue;
    }
    sink.report({use.span, std::move(message), {}, {}});
  }
}

}  // namespace

extern const Rule GL501 = {
    {"GL501", "debug-mode-enabled", "overhead", "Debugging mode left on in training code",
     "remove it, or profile a few steps with `torch.profiler.profile(schedule=...)`",
     "remove it: no `AnomalyMode::set_enabled(true)` or `CUDA_LAUNCH_BLOCKING=1` in training code",
     kDocs, true, Severity::Warning},
    check,
    {"debug", "{profile}.sync_each", "{profile}.async",
     "a sync after every kernel, a {profile} step of {kernels} kernels"},
    shape::kFlatLow};

}  // namespace gpulint::rules
