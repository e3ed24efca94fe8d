// Conditions, boolean masks and tensor-valued parameters: judged where they stand (names hold
// what they held there), reported by the step model only where GL105/GL106 can report them.
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

bool Builder::is_tensor_condition(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > kMaxExprDepth) return false;
  if (is(n, s_.boolean_operator)) {
    return is_tensor_condition(field(n, s_.f_left), depth + 1) ||
           is_tensor_condition(field(n, s_.f_right), depth + 1);
  }
  if (is(n, s_.not_operator)) return is_tensor_condition(field(n, s_.f_argument), depth + 1);
  if (is(n, s_.comparison_operator)) {
    // `x is None` / `x is not None` look at identity, not the value.
    std::string_view t = text(n);
    if (t.find(" is ") != std::string_view::npos || t.find(" in ") != std::string_view::npos)
      return false;
  }
  return is_tensor_expr(n);
}

void Builder::note_mask_index(Node subscript) {
  if ((function_ < 0 && loop_stack_.empty()) || subscript.named_child_count() != 2) return;
  Node value = field(subscript, s_.f_value);
  if (!is_mask(field(subscript, s_.f_subscript)) || !is_tensor_expr(value)) return;
  if (!numpy_names_.count(dotted_view(value))) mask_indexings_.emplace_back(subscript, scope_);
}

void Builder::note_condition(Node condition) {
  // Module-level code outside loops runs once: nothing there is judged per step.
  if (function_ < 0 && loop_stack_.empty()) return;
  if (is_tensor_condition(condition)) {
    tensor_conditions_.emplace_back(condition, scope_);
    return;
  }
  // `if loss > limit:` in `def clip(loss)`: a tensor when a caller passes one (judged at the
  // end, where the step context is known).
  if (function_ >= 0 && !params_.empty() && !params_.back().empty())
    parameter_conditions_.push_back({condition, scope_, function_});
}

// Each parameter condition again, with the parameters this file's callers give tensors taken
// as tensors (and only while it is judged).
void Builder::judge_parameter_conditions() {
  for (const ParameterCondition& c : parameter_conditions_) {
    if (!m_.unguarded_per_step(c.scope)) continue;
    const Function& f = m_.functions[c.function];
    const size_t skip = !f.parameters.empty() && f.parameters.front() == "self" ? 1 : 0;
    std::vector<std::string_view> added;
    bool passed = false;
    for (const TensorArgument& a : tensor_arguments_) {
      if (function_called(a.callee, a.klass) != c.function) continue;
      const size_t param = a.position + skip;
      if (param >= f.parameters.size()) continue;
      passed = true;
      if (tensor_names_.count(f.parameters[param])) continue;
      tensor_names_.add(f.parameters[param]);
      added.push_back(f.parameters[param]);
    }
    if (passed && is_tensor_condition(c.condition))
      tensor_conditions_.emplace_back(c.condition, c.scope);
    for (std::string_view name : added) tensor_names_.remove(name);
  }
}

// `batches_done = epoch * len(loader) + i`: whole-number arithmetic on a step counter counts
// steps too, so a guard on it (`batches_done % n == 0`) is an interval guard. The other operands
// are numbers, names and attributes that hold no tensor, and `len(...)`; true division, another
// call or a tensor makes it something else (`progress = i / len(loader)`). `counter`: one of
// the operands is a counter.
bool Builder::counts_steps(Node n, bool& counter, int depth) const {
  n = unparen(n);
  if (null(n) || depth > 8) return false;
  if (is(n, s_.integer)) return true;
  if (is(n, s_.identifier) || is(n, s_.attribute)) {
    const std::string_view name = dotted_view(n);
    if (name.empty() || tensor_names_.count(name)) return false;
    if (counter_names_.count(name) || looks_like_counter(name)) counter = true;
    return true;
  }
  if (is(n, s_.call)) return callee_name(n) == "len";
  if (!is(n, s_.binary_operator)) return false;
  Node op = field(n, s_.f_operator);
  if (null(op)) return false;
  const std::string_view o = text(op);
  if (o != "+" && o != "-" && o != "*" && o != "//" && o != "%") return false;
  return counts_steps(field(n, s_.f_left), counter, depth + 1) &&
         counts_steps(field(n, s_.f_right), counter, depth + 1);
}

// What may be a boolean tensor used as an index: a comparison, `.bool()`, a tensor built with
// `dtype=torch.bool`, a name bound to one of those, or `~` of any of them. A comparison's
// operands are often not known to be tensors (`labels != -100` of a batch field), so the
// subscript's receiver, which must be a tensor, decides.
bool Builder::is_mask(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > 8) return false;
  if (is(n, s_.identifier)) return mask_names_.count(text(n)) > 0;
  if (is(n, s_.unary_operator)) {
    Node op = field(n, s_.f_operator);
    return !null(op) && text(op) == "~" && is_mask(field(n, s_.f_argument), depth + 1);
  }
  if (is(n, s_.comparison_operator)) {
    const std::string_view t = text(n);
    // `a in b` and `a is b` give Python booleans.
    return t.find(" in ") == std::string_view::npos && t.find(" is ") == std::string_view::npos;
  }
  if (is(n, s_.call)) {
    const std::string_view method = method_of(n);
    if (method == "bool") return true;
    if (method == "to" || method == "cuda") return is_mask(receiver_of(n), depth + 1);
    return contains_text(field(n, s_.f_arguments), "torch.bool") &&
           is_tensor_function(callee_name(n));
  }
  return false;
}

}  // namespace gpulint::python
