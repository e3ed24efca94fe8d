#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags an evaluation step loop (the model is called on each batch, no backward or optimizer step
is reached) that runs with autograd on: no `torch.no_grad()` / `torch.inference_mode()` block
around it or around the model calls, no `@torch.no_grad()` on its function or a caller, and no
`torch.set_grad_enabled(False)` statement earlier in its block or an enclosing one (up to a
`torch.set_grad_enabled(True)` in that same block, which turns autograd back on).
Models frozen with `requires_grad_(False)` (`net.eval().requires_grad_(False)`, or a name bound
to such a chain) and never thawed in the file record no graph: a loop that calls only those is
silent.
Loops inside a module's `forward`, or in a method that `forward` calls on its own class (a
rollout that builds the loss), are part of the forward pass and never step loops. So is a loop
over environments or chunks in a function that then runs the backward or the optimizer step
itself (`for x, y in minibatches: loss += f(net(x), y)`, then `loss.backward()`): it is the
forward part of one training step. `torch.autograd.grad(loss, net.parameters())` is a backward
pass, and a loop that reaches it trains.
Reported at the loop header. In Python its fix (unsafe) wraps the loop in
`with torch.no_grad():` and indents the loop's lines, not those of a string that runs over
several; unsafe because an evaluation that wants gradients (input attributions, an adversarial
step) stops getting them, and because it assumes `torch` is the module's name in the file. In
C++ the fix (unsafe, for the same reason) opens the loop's body with
`torch::NoGradGuard no_grad;`, when the body is a block whose first statement has a line of its
own: the guard holds for the rest of each iteration and ends with it.

## Why is this bad
With autograd on, every forward op records its graph node and keeps the tensors a backward pass
would need. Evaluation never runs that backward, so the bookkeeping is wasted time and the saved
activations are wasted memory that limits the batch size.

## Example
```python
model.eval()
for x, y in val_loader:
    correct += (model(x.to(device)).argmax(1) == y.to(device)).sum()
```

## Use instead
```python
model.eval()
with torch.inference_mode():
    for x, y in val_loader:
        correct += (model(x.to(device)).argmax(1) == y.to(device)).sum()
```
)md";

// Unsafe: an evaluation that wants gradients (input attributions, an adversarial step) stops
// getting them, and `torch` must be the module's name in the file.
// C++: a guard as the body's first statement, for the rest of each iteration.
std::optional<Fix> guard_the_body(const Loop& loop) {
  if (!loop.body_indent) return std::nullopt;
  Fix fix{"open the loop's body with `torch::NoGradGuard no_grad;`", Applicability::Unsafe, {}};
  fix.edits.push_back(
      {{loop.body_line, loop.body_line}, *loop.body_indent + "torch::NoGradGuard no_grad;\n"});
  return fix;
}

std::optional<Fix> wrap_in_no_grad(const StepModel& m, const Loop& loop) {
  if (m.language == Language::Cpp) return guard_the_body(loop);
  if (!loop.indent) return std::nullopt;
  const std::string unit = loop.indent->find('\t') != std::string::npos ? "\t" : "    ";
  const uint32_t line_start = loop.span.begin - static_cast<uint32_t>(loop.indent->size());
  Fix fix{"wrap the loop in `with torch.no_grad():`", Applicability::Unsafe, {}};
  fix.edits.push_back({{line_start, line_start}, *loop.indent + "with torch.no_grad():\n" + unit});
  for (uint32_t at : loop.body_lines) fix.edits.push_back({{at, at}, unit});
  return fix;
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  for (size_t i = 0; i < m.loops.size(); ++i) {
    const Loop& loop = m.loops[i];
    if (loop.kind != LoopKind::Evaluation) continue;
    const auto calls = m.events_in(static_cast<int32_t>(i), StepEventKind::ModelCall);
    if (calls.empty() || (m.enclosing_regions(loop.scope) & kRegionNoGrad)) continue;
    const bool all_no_grad = std::all_of(calls.begin(), calls.end(), [&](const StepEvent* e) {
      return (m.step_context(e->scope).regions & kRegionNoGrad) != 0 ||
             std::binary_search(m.frozen_models.begin(), m.frozen_models.end(), e->name);
    });
    if (all_no_grad) continue;
    // Inside a step that runs every time (micro-batches, rollouts before one backward), the
    // graph is what the enclosing step needs; an inner loop of an evaluation loop is covered
    // by the finding on the outer one.
    const StepContext outer = m.step_context(m.scopes[loop.scope].parent);
    if (outer.unguarded_per_step()) continue;
    const std::string& name = calls.front()->name;
    sink.report({loop.header,
                 "evaluation loop calls " + (name.empty() ? "the model" : "`" + name + "`") +
                     " with autograd on: activations are kept for a backward that never comes",
                 {},
                 wrap_in_no_grad(m, loop)});
  }
}

}  // namespace

extern const Rule GL504 = {
    {"GL504", "eval-without-no-grad", "overhead", "Evaluation loop runs with autograd on",
     "wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`)",
     "open the evaluation loop with `torch::NoGradGuard no_grad;` (or `c10::InferenceMode guard;`)",
     kDocs, true, Severity::Warning},
    check};

}  // namespace gpulint::rules
