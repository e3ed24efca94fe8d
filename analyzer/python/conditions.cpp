// Conditions, boolean masks and tensor-valued parameters: judged where they stand (names hold
// what they held there), reported by the step model only where GL105/GL106 can report them.
// And the reverse: values known never to be tensors, which make a helper's
// `isinstance(v, torch.Tensor)` branch dead for callers that pass only them. And guards: which
// steps a condition, or an early exit, leaves to the code under it.
#include <algorithm>
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
    // `x.dtype != dtype`, `x.device == device`: metadata the host holds, whatever the other side.
    for (Node c = n.first_child(); !null(c); c = c.next_sibling()) {
      if (!is(c, s_.attribute)) continue;
      const std::string_view a = text(field(c, s_.f_attribute));
      if (a == "dtype" || a == "device" || a == "is_cuda" || a == "requires_grad" || a == "ndim")
        return false;
    }
    // `torch.rand(1) > 0.5`: a tensor made on the host is compared on the host.
    for (Node c = n.first_child(); !null(c); c = c.next_sibling()) {
      if (c.named() && is_tensor_expr(c, depth + 1) && !on_host(c, depth + 1)) return true;
    }
    return false;
  }
  return is_tensor_expr(n) && !on_host(n);
}

// 1 for `torch.cuda.is_available()`, -1 for its negation, 0 for anything else.
int Builder::cuda_availability(Node condition) const {
  Node c = unparen(condition);
  int sign = 1;
  if (is(c, s_.not_operator)) {
    c = unparen(field(c, s_.f_argument));
    sign = -1;
  }
  return is(c, s_.call) && callee_name(c).ends_with("cuda.is_available") ? sign : 0;
}

void Builder::note_mask_index(Node subscript) {
  if ((function_ < 0 && loop_stack_.empty()) || subscript.named_child_count() != 2) return;
  Node value = field(subscript, s_.f_value);
  if (!is_mask(field(subscript, s_.f_subscript)) || !is_tensor_expr(value)) return;
  // A host tensor's mask gives its size on the host: nothing waits. So does one of a loader
  // batch never moved (`labels[labels != -100]` where only the inputs went to the GPU).
  if (!on_host(value) && !holds_host_batch(value)) mask_indexings_.emplace_back(subscript, scope_);
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

// `if not should_log: return` (or `continue` in a loop) on a parameter of the function.
std::optional<size_t> Builder::guarding_parameter(Node if_statement) const {
  if (function_ < 0 || !is_early_exit(if_statement)) return std::nullopt;
  const Node condition = unparen(field(if_statement, s_.f_condition));
  if (!is(condition, s_.not_operator)) return std::nullopt;
  const Node flag = unparen(field(condition, s_.f_argument));
  if (!is(flag, s_.identifier)) return std::nullopt;
  const std::vector<std::string>& parameters = m_.functions[function_].parameters;
  const auto at = std::find(parameters.begin(), parameters.end(), text(flag));
  if (at == parameters.end()) return std::nullopt;
  return static_cast<size_t>(at - parameters.begin());
}

// `step % 100 == 0`, or a flag holding one: true on some steps only.
bool Builder::is_interval_value(Node n) {
  n = unparen(n);
  if (is(n, s_.identifier)) return guard_flags_.count(text(n)) > 0;
  const bool condition = is(n, s_.comparison_operator) || is(n, s_.boolean_operator);
  return condition && classify_guard(n) == Guard::Interval;
}

// The rest of a function after `if not flag: return` runs on guarded steps when every call of
// the file passes an interval guard for the flag (and some call passes one).
void Builder::judge_parameter_guards() {
  for (const ParameterGuard& g : parameter_guards_) {
    const Function& f = m_.functions[g.function];
    const size_t skip = !f.parameters.empty() && f.parameters.front() == "self" ? 1 : 0;
    bool interval = false, other = false;
    for (const GuardArgument& a : guard_arguments_) {
      const bool here = a.position == std::string_view::npos ? a.name == f.parameters[g.parameter]
                                                             : a.position + skip == g.parameter;
      if (!here || function_called(a.callee, a.klass) != g.function) continue;
      (a.interval ? interval : other) = true;
    }
    if (interval && !other) m_.scopes[g.scope].guard = Guard::Interval;
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

// `isinstance(v, torch.Tensor)` (or `torch.is_tensor(v)`) of a value the function was passed:
// a parameter, or a name bound from one (`for k, v in kwargs.items()`).
bool Builder::is_tensor_type_test(Node condition) const {
  condition = unparen(condition);
  if (!is(condition, s_.call) || params_.empty()) return false;
  const std::string_view callee = callee_name(condition);
  Node args = field(condition, s_.f_arguments);
  if (null(args) || args.named_child_count() == 0) return false;
  Node tested = args.named_child(0);
  if (callee == "isinstance") {
    if (args.named_child_count() != 2) return false;
    const std::string_view type = text(args.named_child(1));
    if (type != "torch.Tensor" && type != "Tensor") return false;
  } else if (callee != "torch.is_tensor") {
    return false;
  }
  if (!is(tested, s_.identifier)) return false;
  const std::string_view name = text(tested);
  if (params_.back().count(name)) return true;
  return std::any_of(loop_stack_.begin(), loop_stack_.end(), [&](const LoopState& loop) {
    return loop.function == function_ && loop.from_arguments.count(name);
  });
}

std::pair<std::string_view, std::string_view> Builder::narrowed_instance(Node condition) const {
  condition = unparen(condition);
  if (!is(condition, s_.call) || callee_name(condition) != "isinstance") return {};
  Node args = field(condition, s_.f_arguments);
  if (null(args) || args.named_child_count() != 2) return {};
  const std::string_view name = dotted_view(args.named_child(0));
  const std::string_view klass = dotted_view(args.named_child(1));
  if (name.empty() || !names_class(klass) || klass.starts_with("torch.") ||
      klass.starts_with("nn."))
    return {};
  return {name, klass};
}

// A value known never to be a tensor: a literal, a name last given one, a step counter, a
// number read off a tensor (`.item()`, `float(...)`), a length, a clock reading, an optimizer's
// learning rate (`optimizer.param_groups[0]["lr"]`), and arithmetic of these.
bool Builder::is_scalar_expr(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > kMaxExprDepth) return false;
  if (is(n, s_.integer) || is(n, s_.float_) || is(n, s_.string) || is(n, s_.concatenated_string) ||
      is(n, s_.true_) || is(n, s_.false_) || is(n, s_.none))
    return true;
  if (is(n, s_.identifier)) return scalar_names_.count(text(n)) || counter_names_.count(text(n));
  if (is(n, s_.unary_operator)) return is_scalar_expr(field(n, s_.f_argument), depth + 1);
  if (is(n, s_.binary_operator)) {
    return is_scalar_expr(field(n, s_.f_left), depth + 1) &&
           is_scalar_expr(field(n, s_.f_right), depth + 1);
  }
  if (is(n, s_.subscript)) {
    for (Node v = n; is(v, s_.subscript) && depth < kMaxExprDepth; ++depth) {
      v = field(v, s_.f_value);
      if (is(v, s_.attribute) && text(field(v, s_.f_attribute)) == "param_groups") return true;
    }
    return false;
  }
  if (!is(n, s_.call)) return false;
  // Read off the call's own nodes: this runs for every argument of every call.
  Node function = field(n, s_.f_function);
  if (is(function, s_.identifier)) {
    const std::string_view name = text(function);
    return name == "float" || name == "int" || name == "len" || name == "round" || name == "str";
  }
  if (!is(function, s_.attribute)) return false;
  const std::string_view method = text(field(function, s_.f_attribute));
  if (method == "item" || method == "tolist") return true;
  return (method == "time" || method == "perf_counter") &&
         text(field(function, s_.f_object)) == "time";
}

// Every argument of a call is known never to be a tensor (a call without any included).
bool Builder::only_scalars(const Args& args) const {
  if (args.list_splat || !args.dict_splats.empty()) return false;
  for (Node a : args.positional) {
    if (!is_scalar_expr(a)) return false;
  }
  for (const auto& [name, value] : args.keywords) {
    if (!is_scalar_expr(value)) return false;
  }
  return true;
}

// `if isinstance(v, torch.Tensor): v = v.item()` in a helper syncs only when a caller passes it
// a tensor. Where every call of the helper this run knows (this file's, and those of other
// files' step loops) passes only values that are never tensors, its syncs under that branch
// never happen, and are dropped. A helper no known call reaches keeps them.
void Builder::drop_syncs_no_caller_reaches() {
  if (type_tested_.empty()) return;
  // The function a sync is in, where the sync is under a type test of that function.
  const auto tested_function = [&](ScopeId scope) {
    bool tested = false;
    for (; scope != kNoScope; scope = m_.scopes[scope].parent) {
      tested = tested ||
               std::find(type_tested_.begin(), type_tested_.end(), scope) != type_tested_.end();
      if (m_.scopes[scope].kind == ScopeKind::Function)
        return tested ? m_.scopes[scope].index : int32_t{-1};
    }
    return int32_t{-1};
  };
  const auto only_scalars_reach = [&](int32_t function) {
    bool called = false;
    for (const Call& c : m_.calls) {
      if (c.callee != function) continue;
      if (!c.scalar_arguments) return false;
      called = true;
    }
    for (const ExternalCaller& c : m_.external_callers) {
      if (c.index != function) continue;
      if (!c.scalar_arguments) return false;
      called = true;
    }
    return called;
  };
  std::erase_if(m_.syncs, [&](const HostSync& sync) {
    const int32_t function = tested_function(sync.scope);
    return function >= 0 && only_scalars_reach(function);
  });
}

// ---- guards --------------------------------------------------------------------------
Guard Builder::classify_guard(Node condition) {
  std::vector<std::string_view>& names = scratch_names_;
  names.clear();
  read_names(condition, names);
  bool rank = false, counter = false;
  std::string_view t = text(condition);
  for (std::string_view name : names) {
    if (is_rank_name(name)) rank = true;
    if (counter_names_.count(name) || looks_like_counter(name)) counter = true;
    // `if is_log:` after `is_log = step % n == 0`; `if not is_log:` runs on the other steps.
    if (guard_flags_.count(name) && !t.starts_with("not ")) return Guard::Interval;
  }
  counter = counter || reads_counter_key(condition);
  bool interval_op =
      t.find('%') != std::string_view::npos || t.find("==") != std::string_view::npos ||
      t.find('<') != std::string_view::npos || t.find('>') != std::string_view::npos ||
      t.find('(') != std::string_view::npos || t.find("not ") != std::string_view::npos;
  if (counter && interval_op) return Guard::Interval;
  // `if int(os.environ.get("RANK", 0)) == 0:`: the rank read from the launcher's environment.
  if (!rank && t.find("environ") != std::string_view::npos)
    rank = t.find("RANK\"") != std::string_view::npos || t.find("RANK'") != std::string_view::npos;
  if (!rank) return Guard::Data;
  // `if args.rank == 0 and now - last_log > log_every_s:`: the rank test is only half of it;
  // the clock lets the main process through once every so many seconds, not every step.
  if (const Node c = unparen(condition); is(c, s_.boolean_operator)) {
    const Node op = field(c, s_.f_operator);
    if (!null(op) && text(op) == "and" &&
        (throttles_by_time(field(c, s_.f_left)) || throttles_by_time(field(c, s_.f_right))))
      return Guard::Data;
  }
  return Guard::Rank;
}

// `time.time()`, `time.perf_counter()`, `time.monotonic()`, or a name bound to one.
bool Builder::is_clock(Node n) const {
  n = unparen(n);
  if (is(n, s_.identifier) || is(n, s_.attribute)) return clock_names_.count(dotted_view(n)) > 0;
  if (!is(n, s_.call)) return false;
  const std::string_view callee = callee_name(n);
  return callee == "time.time" || callee == "time.perf_counter" || callee == "time.monotonic";
}

// `now - last_log > log_every_s`: true once every so many seconds.
bool Builder::throttles_by_time(Node condition) const {
  condition = unparen(condition);
  if (!is(condition, s_.comparison_operator) || condition.named_child_count() != 2) return false;
  std::string_view op;
  for (Node c = condition.first_child(); !null(c); c = c.next_sibling()) {
    if (!c.named()) op = text(c);
  }
  if (op != ">" && op != ">=") return false;
  const Node elapsed = unparen(condition.named_child(0));
  if (!is(elapsed, s_.binary_operator)) return false;
  const Node minus = field(elapsed, s_.f_operator);
  return !null(minus) && text(minus) == "-" && is_clock(field(elapsed, s_.f_left));
}

// Under `if args.debug:` (or a conditional expression on one), in this function.
bool Builder::debug_guarded(Node n) const {
  for (Node a = n.parent(), below = n; !null(a) && !is(a, s_.function_definition);
       below = a, a = a.parent()) {
    Node condition;
    if (is(a, s_.if_statement) || is(a, s_.elif_clause)) condition = field(a, s_.f_condition);
    if (is(a, s_.conditional_expression)) condition = a.named_child(1);
    if (!null(condition) && condition != below && names_debug_option(text(condition))) return true;
  }
  return false;
}

// `state["step_count"]`: a step counter kept under a key of a dict.
bool Builder::reads_counter_key(Node n, int depth) const {
  if (null(n) || depth > kMaxExprDepth) return false;
  if (is(n, s_.subscript)) {
    Node key = field(n, s_.f_subscript);
    if (is(key, s_.string) && looks_like_counter(string_value(key))) return true;
  }
  bool found = false;
  for (Node c = n.first_child(); !null(c) && !found; c = c.next_sibling())
    found = reads_counter_key(c, depth + 1);
  return found;
}

// What the statements after `if CONDITION: return` run under: the condition is false there.
// Not the step named (`step != last`, `step % n != 0`, `step not in saves`), too soon after the
// last time (`step - last < interval`), or a guard flag negated (`not is_log`) leave some steps
// only. A bound (`if step >= max_steps: break`) or the step named (`step % n == 0`) leaves
// nearly all of them, so that is no guard.
Guard Builder::classify_exit_guard(Node condition) {
  std::vector<std::string_view>& names = scratch_names_;
  names.clear();
  read_names(condition, names);
  const std::string_view t = text(condition);
  const bool negated = t.starts_with("not ");
  bool counter = false;
  for (std::string_view name : names) {
    if (counter_names_.count(name) || looks_like_counter(name)) counter = true;
    if (negated && guard_flags_.count(name)) return Guard::Interval;
  }
  counter = counter || reads_counter_key(condition);
  const bool since =
      t.find(" - ") != std::string_view::npos &&
      (t.find('<') != std::string_view::npos || t.find('>') != std::string_view::npos);
  const bool other_step =
      t.find("!=") != std::string_view::npos || t.find(" not in ") != std::string_view::npos;
  return counter && (since || other_step) ? Guard::Interval : Guard::Data;
}

// Does the code after this `if` statement run on guarded steps only? After `if step % n != 0:
// return`, yes. After `if step == 0: (return unless asked) else: (return unless step % n == 0)`
// too: every branch either leaves, lets through the steps its own condition picks (`step ==
// 0`), or returns early on a step counter further in. A branch that may fall through on any
// step (an `if` without `else`, an exit on data) leaves the rest unguarded.
bool Builder::guards_the_rest(Node if_statement, int depth) {
  if (depth > 4) return false;
  if (is_early_exit(if_statement)) {
    Node condition = field(if_statement, s_.f_condition);
    return !null(condition) && classify_exit_guard(condition) == Guard::Interval;
  }
  // Without an `else`, the steps no branch takes fall through: most `if`s end here, unjudged.
  if (null(field(if_statement, s_.f_alternative))) return false;
  auto branch_guarded = [&](Node condition, Node body) {
    return (!null(condition) && classify_guard(condition) == Guard::Interval) ||
           lets_through_guarded_steps(body, depth + 1);
  };
  if (!branch_guarded(field(if_statement, s_.f_condition), field(if_statement, s_.f_consequence)))
    return false;
  bool otherwise = false, guarded = true;
  for_each_child(if_statement, [&](Node c) {
    if (is(c, s_.elif_clause)) {
      guarded = guarded && branch_guarded(field(c, s_.f_condition), field(c, s_.f_consequence));
    } else if (is(c, s_.else_clause)) {
      otherwise = true;
      guarded = guarded && lets_through_guarded_steps(field(c, s_.f_body), depth + 1);
    }
  });
  return otherwise && guarded;
}

// Does a branch's block either leave or hold a statement after which only guarded steps go on?
bool Builder::lets_through_guarded_steps(Node block, int depth) {
  if (null(block)) return false;
  if (ends_in_exit(block)) return true;
  for (Node c = block.first_child(); !null(c); c = c.next_sibling()) {
    if (is(c, s_.if_statement) && guards_the_rest(c, depth)) return true;
  }
  return false;
}

}  // namespace gpulint::python
