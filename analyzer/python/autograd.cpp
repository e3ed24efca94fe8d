// Autograd: which values carry a step's graph (a model's or a loss's output, not detached),
// and which were computed where no graph is recorded (under no_grad); and the accumulations
// across steps (`total += loss`) that keep those graphs alive; and `set_grad_enabled` statements,
// which switch recording off for the rest of a block.
#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

#include "analyzer/core/word_list.h"
#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

// Inside a `with torch.no_grad():` (or inference_mode) of the function being walked, or a
// function decorated with one. Regions a caller opens are not known yet: the rules judge those.
bool Builder::under_no_grad() const {
  for (ScopeId s = scope_; s != kNoScope; s = m_.scopes[s].parent) {
    if (m_.scopes[s].regions & kRegionNoGrad) return true;
    if (m_.scopes[s].kind == ScopeKind::Function) return false;
  }
  return false;
}

// A name given a value under no_grad, or one of its attributes (`outputs.loss`).
bool Builder::reads_graphless(Node n) const {
  if (graphless_names_.empty()) return false;
  n = unparen(n);
  // `loss.float()`, `loss.mean()` of a value without a graph: none either.
  for (int d = 0; d < kMaxExprDepth && is(n, s_.call) && is_tensor_method(method_of(n)); ++d)
    n = unparen(receiver_of(n));
  if (is(n, s_.identifier)) return graphless_names_.count(text(n)) > 0;
  return is(n, s_.attribute) && (graphless_names_.count(dotted_view(n)) ||
                                 graphless_names_.count(dotted_view(field(n, s_.f_object))));
}

// Does the value carry autograd history from this step: the model's or the loss's output,
// not detached?
bool Builder::is_graph_expr(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > kMaxExprDepth) return false;
  if (is(n, s_.identifier)) return grad_names_.count(text(n)) > 0;
  if (is(n, s_.attribute)) {
    Node attr = field(n, s_.f_attribute);
    if (!null(attr) && text(attr) == "loss") return !reads_graphless(n);
    return grad_names_.count(dotted_view(n)) > 0;
  }
  if (is(n, s_.binary_operator)) {
    return is_graph_expr(field(n, s_.f_left), depth + 1) ||
           is_graph_expr(field(n, s_.f_right), depth + 1);
  }
  if (is(n, s_.subscript)) return is_graph_expr(field(n, s_.f_value), depth + 1);
  if (is(n, s_.call)) {
    std::string_view method = method_of(n);
    if (method == "detach" || method == "item" || method == "tolist" || method == "numpy" ||
        method == "argmax" || method == "argmin" || method == "eq" || method == "ne" ||
        method == "long" || method == "bool") {
      return false;
    }
    const std::string_view callee = callee_name(n);
    if (!callee.empty() && !frozen(callee) &&
        (model_names_.count(callee) || loss_names_.count(callee) || is_functional_loss(callee))) {
      return true;
    }
    // `.cpu()` is differentiable: the host copy keeps the graph.
    if (!method.empty() && (is_tensor_method(method) || method == "cpu"))
      return is_graph_expr(receiver_of(n), depth + 1);
    // `F.normalize(out)`, `pool(out, mask)` of this file: computed from the graph, part of it.
    static constexpr std::array<std::string_view, 23> kNoGradient = {
        "argmax", "argmin",  "argsort",      "eq",         "ne",          "lt",
        "gt",     "le",      "ge",           "isnan",      "isinf",       "isfinite",
        "equal",  "nonzero", "logical_and",  "logical_or", "logical_not", "count_nonzero",
        "unique", "where",   "searchsorted", "bucketize",  "allclose"};
    const std::string_view tail = last_component(callee);
    const bool differentiable = !one_of(tail, kNoGradient);
    if (differentiable && (is_tensor_function(callee) || function_by_name_.count(callee))) {
      Node list = field(n, s_.f_arguments);
      for (Node arg = null(list) ? Node{} : list.first_child(); !null(arg);
           arg = arg.next_sibling()) {
        if (arg.named() && is_graph_expr(arg, depth + 1)) return true;
      }
    }
  }
  return false;
}

// `net.eval().requires_grad_(False)` freezes `net`; `requires_grad_(True)` (or no argument)
// thaws it.
void Builder::note_requires_grad(Node recv, const Args& args) {
  // Through the module methods that return the module itself: `net.eval().to(device)`.
  static constexpr std::string_view kSameModule[] = {"eval", "train", "to",   "cuda",
                                                     "cpu",  "float", "half", "bfloat16"};
  Node module = recv;
  for (int d = 0; d < kMaxExprDepth && is(module, s_.call) &&
                  std::ranges::find(kSameModule, method_of(module)) != std::end(kSameModule);
       ++d) {
    module = receiver_of(module);
  }
  const std::string_view name = is(module, s_.call) ? std::string_view() : dotted_view(module);
  const bool freezes = args.positional.size() == 1 && is(args.positional.front(), s_.false_);
  if (!name.empty()) (freezes ? frozen_models_ : unfrozen_models_).add(name);
}

std::string Builder::derived_key(int32_t function, std::string_view name) {
  return std::to_string(function).append(1, '\0').append(name);
}

// `loss = torch.stack(log_probs).sum()` after `log_probs.append(...)`: `loss` carries what was
// accumulated. Only asked once something is accumulated, so most assignments pay nothing.
void Builder::note_derived(std::string_view name, Node value) {
  std::vector<std::string_view>& read = scratch_names_;
  read.clear();
  read_names(value, read);
  std::vector<std::string> targets;
  for (std::string_view r : read) {
    const std::string key = derived_key(function_, r);
    if (accumulated_targets_.count(key)) targets.emplace_back(r);
    if (const auto it = derived_targets_.find(key); it != derived_targets_.end()) {
      targets.insert(targets.end(), it->second.begin(), it->second.end());
    }
  }
  if (targets.empty()) return;
  std::vector<std::string>& known = derived_targets_[derived_key(function_, name)];
  for (std::string& target : targets) {
    if (std::find(known.begin(), known.end(), target) == known.end())
      known.push_back(std::move(target));
  }
}

// `total += loss` / `losses.append(loss)` into a name that outlives the step.
void Builder::note_accumulation(Node n, std::string_view target, Node value) {
  if (null(value) || loop_stack_.empty() || loop_stack_.back().function != function_) return;
  Accumulation a;
  for (const LoopState& state : loop_stack_) {
    if (state.function == function_ && state.bound.count(target)) a.reset_in.push_back(state.loop);
  }
  a.bound_per_call = target.find('.') == std::string_view::npos && bound_before_loops(n, target);
  a.span = span(n);
  a.value = span(value);
  a.scope = scope_;
  a.loop = loop_stack_.back().loop;
  a.target = target;
  a.value_name = std::string(text(value).substr(0, 60));
  a.value_primary = is(value, s_.identifier) || is(value, s_.attribute) || is(value, s_.call) ||
                    is(value, s_.subscript) || is(value, s_.parenthesized_expression);
  accumulated_targets_.add(derived_key(function_, target));
  // `losses.append(loss)` after `with torch.no_grad(): loss = model(**batch).loss`.
  pending_accumulations_.push_back({value, std::move(a), reads_graphless(value)});
}

// Whether a statement before the function's outermost loop around `n`, in the blocks that hold
// that loop, binds `name` (`lcls = torch.zeros(1)`, `a, b = [], []`).
bool Builder::bound_before_loops(Node n, std::string_view name) {
  if (function_ < 0) return false;
  size_t loops = 0;  // of this function, around n
  for (const LoopState& state : loop_stack_) loops += state.function == function_;
  std::vector<std::string_view> bound;
  for (Node at = n; !null(at.parent()) && !is(at, s_.function_definition); at = at.parent()) {
    // Inside the loops, only the outermost one's earlier siblings and those of what holds it.
    if (loops > 0 && !((is(at, s_.for_statement) || is(at, s_.while_statement)) && --loops == 0))
      continue;
    for (Node before = at.parent().first_child(); !null(before) && before != at;
         before = before.next_sibling()) {
      if (!is(before, s_.expression_statement) || before.named_child_count() != 1) continue;
      const Node assignment = before.named_child(0);
      if (!is(assignment, s_.assignment)) continue;
      bound.clear();
      target_names(field(assignment, s_.f_left), bound);
      if (std::find(bound.begin(), bound.end(), name) != bound.end()) return true;
    }
  }
  return false;
}

// `torch.set_grad_enabled(False)` as a statement: false, and true for `(True)`; none for any
// other statement, or a switch whose value is not a literal.
std::optional<bool> Builder::grad_switch(Node statement) const {
  if (!is(statement, s_.expression_statement) || statement.named_child_count() != 1)
    return std::nullopt;
  const Node call = statement.named_child(0);
  if (!is(call, s_.call) || last_component(callee_name(call)) != "set_grad_enabled")
    return std::nullopt;
  const Node args = field(call, s_.f_arguments);
  const Node value = null(args) || args.named_child_count() != 1 ? Node{} : args.named_child(0);
  if (is(value, s_.false_)) return false;
  if (is(value, s_.true_)) return true;
  return std::nullopt;
}

// The statements after `torch.set_grad_enabled(False)` run without autograd, as a
// `with torch.no_grad():` body does, until `torch.set_grad_enabled(True)` in the same block.
// `open` holds the scope the switch opened and the one it left, kNoScope for none.
void Builder::switch_grad(Node statement, GradSwitch& open) {
  const std::optional<bool> enabled = grad_switch(statement);
  if (!enabled) return;
  if (!*enabled && open.opened == kNoScope) {
    open.left = scope_;
    scope_ = open.opened = new_scope(ScopeKind::With);
    m_.scopes[scope_].regions = kRegionNoGrad;
  } else if (*enabled && open.opened == scope_) {
    // Under a guard opened since (`if not log: return`), the rest stays as it is.
    scope_ = open.left;
    open = {};
  }
}

}  // namespace gpulint::python
