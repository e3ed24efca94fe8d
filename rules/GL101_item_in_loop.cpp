#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `.item()`, `.tolist()` and `float(t)` / `int(t)` / `bool(t)` of a tensor inside a training or
evaluation step loop (or a helper it calls every step), unless an interval guard such as
`if step % log_every == 0` limits it to some steps (also through a flag holding one, a counter
under a dict key such as `state["step_count"]`, one the step grows only below the test
(`state.cur_nimg += batch_size` at its end), or a helper's `if not should_log: return` when
every call passes an interval guard for `should_log`). What is known not to be on the GPU is
silent: a loader's batch that was never moved (and its items, iterated or zipped with
others), a tensor made with `device="cpu"` and what its methods compute, the items of a host
copy (`for c, m in zip(ids.cpu(), mask.cpu()):`, in a comprehension too), arithmetic and comparisons of host tensors
and numbers, a cast with `.to(torch.long)` of one, a NumPy array, what a checkpoint
loaded without a CUDA `map_location` holds (a step counter), and a program whose devices are
all another accelerator (MPS, XLA); what a chain has already copied to the host or into numpy on the way
(`t.cpu().numpy().tolist()`: the `.cpu()` is GL102's), and in a helper, a read under
`if isinstance(v, torch.Tensor):` when every known call passes numbers (`.item()` results,
counters, the learning rate, literals), and code that runs only without CUDA (the `else` of
`if torch.cuda.is_available():`). A helper's several reads are one finding, at the first.
A loop over a loader's length runs once a batch (`for _ in range(len(loader))`), but one over a
step budget divided by it counts epochs (`range(ceil(steps / len(loader)))`): reads after its
pass over the loader run once an epoch.

## Why is this bad
Reading a CUDA tensor's value on the host waits for every kernel queued before it. The CPU
loses its lead over the GPU, and the GPU then idles while the CPU launches the next step's
kernels. One `.item()` per step can cost more than the step's math on small models.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
```

## Use instead
```python
running_loss = torch.zeros((), device=device)
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    running_loss += loss.detach()
    if step % log_every == 0:
        print(running_loss.item() / (step + 1))
```
)md";

void check(const RuleInput& in, Sink& sink) {
  report_per_step_syncs(in, sink, {SyncKind::Item, SyncKind::ToList, SyncKind::Convert},
                        "waits for the GPU every step");
}

}  // namespace

extern const Rule GL101 = {
    {"GL101", "item-in-loop", "sync", "Tensor value read on the host every step",
     "accumulate on the device (`.detach()`) and read the value every N steps or after the loop",
     "accumulate on the device (`total += loss.detach()`) and read `.item<float>()` every N steps "
     "or after the loop",
     kDocs, true, Severity::Warning},
    check,
    {"sync", "{profile}.readback", "{profile}.pipelined",
     "a 4-byte device-to-host read every step, a {profile} step of {kernels} kernels"},
    shape::kFlatLow,
    evidence::kValueRead};

}  // namespace gpulint::rules
