#include <cctype>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags a loss or model output that is accumulated across steps (`total += loss`,
`losses.append(loss)`) while it still carries its autograd history: no `.detach()`, no
`.item()`, and no `torch.no_grad()` around it. What `.backward()` runs on carries history, and
so does what is computed from such a tensor by a torch function (`F.normalize(out)`), a
function of the same file, or a host copy (`.cpu()` is differentiable); `argmax`, comparisons
and other non-differentiable results do not, nor does the output of a model frozen with
`requires_grad_(False)` and never thawed (`requires_grad_(True)`) in the file. What is accumulated in order to be
backpropagated after the loop, directly or through a name computed from it (the per-token
losses of one sequence; an episode's log-probabilities in REINFORCE or actor-critic code,
summed into the loss), needs its graph and is not reported: detaching it would stop learning.
Nor is an accumulator that lives for one step: bound again in the step loop's body, or bound
afresh in a helper the step loop calls, before the helper's own loops (the losses of a
detector's heads summed in its loss function).

## Why is this bad
The accumulated tensor references the autograd graph of every step it was added in, so none of
those graphs, with their saved activations, can be freed. Memory grows step by step until the
program runs out of it, and the allocator works harder long before that.

## Example
```python
total_loss = 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total_loss += loss
```

## Use instead
```python
total_loss = torch.zeros((), device=device)
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total_loss += loss.detach()
```
)md";

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  for (const Accumulation& acc : m.accumulations) {
    if (!acc.carries_graph) continue;
    const StepContext context = m.step_context(acc.scope);
    if (!context.per_step() || (context.regions & kRegionNoGrad) ||
        (m.enclosing_regions(acc.scope) & kRegionNoGrad)) {
      continue;
    }
    Fix fix{"detach the value before accumulating it", Applicability::Safe, {}};
    // `loss`, `f(x)`, `x[0]` take `.detach()` as they are; `loss * n` needs parentheses first.
    if (acc.value_primary) {
      fix.edits.push_back({{acc.value.end, acc.value.end}, ".detach()"});
    } else {
      fix.edits.push_back({{acc.value.begin, acc.value.begin}, "("});
      fix.edits.push_back({{acc.value.end, acc.value.end}, ").detach()"});
    }
    Finding f{acc.span,
              "`" + acc.value_name + "` is accumulated into `" + acc.target + "` in " +
                  step_place(m, context) + via_suffix(context) +
                  " with its autograd graph: every step's graph stays in memory",
              {},
              std::move(fix)};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace

extern const Rule GL502 = {
    {"GL502", "loss-accumulated-with-graph", "overhead",
     "Loss accumulated across steps with its autograd graph",
     "accumulate `loss.detach()` (or `loss.item()` every N steps)",
     "accumulate `loss.detach()` (or read `loss.item<float>()` every N steps)", kDocs, true,
     Severity::Warning},
    check};

}  // namespace gpulint::rules
