// The walk over a file, and what is resolved once the whole file is known.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/front_end.h"
#include "analyzer/python/names.h"
#include "analyzer/python/text_parts.h"
#include "analyzer/syntax_tree.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint::python {

// Files larger than this are parsed a part of about this size at a time (text_parts.h): a
// part's tree costs a few megabytes, where a whole tree would cost 35-60 bytes a source byte.
constexpr uint32_t kPartBytes = 16 * 1024;

StepModel Builder::build(const FlatTree& flat) {
  Node root = root_ = flat.root();
  if (root.null()) {
    m_.parse_errors.push_back({{0, 0}, "the parser gave up on this file"});
    return std::move(m_);
  }
  scope_ = m_.add_scope(ScopeKind::Module, kNoScope);
  module_scope_ = scope_;
  if (root.has_error()) note_first_error(root);
  GradSwitch grad;
  for (Node c = root.first_child(); !null(c); c = c.next_sibling()) {
    visit(c, 1);
    switch_grad(c, grad);
  }
  scope_ = module_scope_;
  finish();
  return std::move(m_);
}

// ---- the walk ------------------------------------------------------------------------
void Builder::visit_children(Node n, int depth) {
  for_each_child(
      n, [&](Node c) { visit(c, depth + 1); }, /*named_only=*/false);
}

// Deeper than the walk goes: reported once (GL000), the inside is skipped.
void Builder::note_too_deep(Node n) {
  static constexpr std::string_view kTooDeep = "expressions nested too deeply to analyse";
  for (const ParseError& e : m_.parse_errors) {
    if (e.message.starts_with(kTooDeep)) return;
  }
  m_.parse_errors.push_back({span(n), std::string(kTooDeep) + "; their innermost part is skipped"});
}

void Builder::visit(Node n, int depth) {
  if (depth > kMaxDepth) return note_too_deep(n);
  if (!n.named()) return;
  TSSymbol sym = n.symbol();
  if (sym == s_.comment) return on_comment(n);
  if (sym == s_.function_definition) return on_function(n, depth, kRegionNone);
  if (sym == s_.decorated_definition) return on_decorated(n, depth);
  if (sym == s_.class_definition) return on_class(n, depth);
  if (sym == s_.for_statement) return on_for(n, depth);
  if (sym == s_.while_statement) return on_while(n, depth);
  if (sym == s_.if_statement) return on_if(n, depth);
  if (sym == s_.block) return on_block(n, depth);
  if (sym == s_.try_statement) return on_try(n, depth);
  if (sym == s_.with_statement) return on_with(n, depth);
  if (sym == s_.call) return on_call(n, depth);
  if (sym == s_.assignment) return on_assignment(n, depth);
  if (sym == s_.augmented_assignment) return on_augmented(n, depth);
  if (sym == s_.return_statement) return on_return(n, depth);
  if (sym == s_.yield) return on_yield(n, depth);
  if (sym == s_.import_statement || sym == s_.import_from_statement) return on_import(n);
  if (sym == s_.subscript) note_mask_index(n);
  if (sym == s_.attribute && !properties_.empty()) note_property_read(n);
  if (sym == s_.pair) note_precision_setting(n);
  // `assert loss > 0` reads the tensor's value on the host, as `if` does.
  if (sym == s_.raise_statement) {
    const bool saved = in_raise_;
    in_raise_ = true;
    visit_children(n, depth);
    in_raise_ = saved;
    return;
  }
  if (sym == s_.assert_statement && n.named_child_count() > 0) {
    visit_children(n, depth);
    return note_condition(n.named_child(0));
  }
  visit_children(n, depth);
}

// The first syntax error in source order: descend into the first child that holds one.
void Builder::note_first_error(Node n) {
  for (int guard = 0; guard < 1 << 20; ++guard) {
    if (n.missing()) {
      m_.parse_errors.push_back(
          {span(n), "syntax error: expected `" + std::string(n.type()) + "`"});
      return;
    }
    if (n.error()) {
      std::string_view t = text(n).substr(0, 24);
      t = t.substr(0, t.find('\n'));
      m_.parse_errors.push_back({span(n), "syntax error near `" + std::string(t) + "`"});
      return;
    }
    Node next{};
    for_each_child(
        n,
        [&](Node c) {
          if (null(next) && (c.has_error() || c.missing())) next = c;
        },
        /*named_only=*/false);
    if (null(next)) break;
    n = next;
  }
  m_.parse_errors.push_back({span(n), "syntax error"});
}

// Comments between a compound statement's header and its body are children of the statement
// itself, which the handlers below do not walk as a whole.
void Builder::note_comments(Node n) {
  for_each_child(n, [&](Node c) {
    if (is(c, s_.comment)) on_comment(c);
  });
}

void Builder::on_comment(Node n) {
  Comment c;
  c.span = span(n);
  uint32_t b = c.span.begin;
  while (b > 0 && (src_[b - 1] == ' ' || src_[b - 1] == '\t')) --b;
  c.own_line = b == 0 || src_[b - 1] == '\n' || src_[b - 1] == '\r';
  m_.comments.push_back(c);
}

// The function of this file a call names (`helper`, or `self.method` in class `klass`), or -1.
int32_t Builder::function_called(std::string_view callee, std::string_view klass) const {
  if (callee == "self" && !klass.empty()) {
    const auto it = function_by_name_.find(std::string(klass) + ".forward");
    return it == function_by_name_.end() ? -1 : it->second;
  }
  if (callee.starts_with("self.")) {
    std::string key(klass);
    key.append(".").append(callee.substr(5));
    const auto it = function_by_name_.find(key);
    return it == function_by_name_.end() ? -1 : it->second;
  }
  const auto it = function_by_name_.find(callee);
  return it == function_by_name_.end() ? -1 : it->second;
}

// Methods that a class's forward calls on its own class run inside the forward pass, and so do
// the ones they call: their loops (a rollout of the model over steps that builds the loss, a
// decoding loop) are never step loops, as forward's own are. Known once every call is.
void Builder::note_forward_helpers() {
  const size_t n = m_.functions.size();
  std::vector<std::string_view> class_of(n);
  std::vector<bool> in_forward(n, false);
  for (const auto& [key, index] : function_by_name_) {
    const size_t dot = key.rfind('.');
    if (dot == std::string::npos) continue;
    class_of[index] = std::string_view(key).substr(0, dot);
    if (std::string_view(key).substr(dot + 1) == "forward") in_forward[index] = true;
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const Call& call : m_.calls) {
      const int32_t caller = m_.function_of(call.scope);
      if (caller < 0 || !in_forward[caller] || in_forward[call.callee]) continue;
      if (class_of[call.callee].empty() || class_of[call.callee] != class_of[caller]) continue;
      in_forward[call.callee] = grew = true;
    }
  }
  // A loop in such a method, or in a function defined inside one.
  for (Loop& loop : m_.loops) {
    for (int32_t f = m_.function_of(loop.scope); f >= 0 && !loop.never_step;
         f = m_.function_of(m_.scopes[m_.functions[f].scope].parent)) {
      loop.never_step = in_forward[f];
    }
  }
}

void Builder::finish() {
  for (const auto& [branch, condition] : early_modulo_guards_) {
    if (classify_guard(condition) == Guard::Interval) m_.scopes[branch].guard = Guard::Interval;
  }
  // Calls that may be of another module's function: `callee` as called, and for a method of
  // a class, the method.
  struct MaybeImported {
    std::string_view callee;
    std::string_view method;  // empty for none
    Span span;
    ScopeId scope;
    bool scalar_arguments;
  };
  std::vector<MaybeImported> maybe_imported;
  maybe_imported.reserve(pending_calls_.size() + pending_dotted_calls_.size() +
                         2 * pending_method_calls_.size());
  // Calls of functions defined in this file, now that every definition is known.
  for (const PendingCall& call : pending_calls_) {
    if (const int32_t function = function_called(call.callee, call.klass); function >= 0) {
      m_.calls.push_back({function, call.span, call.scope, call.scalar_arguments});
    } else if (call.loop_data && model_names_.count(call.callee)) {
      m_.events.push_back(
          {StepEventKind::ModelCall, call.span, call.scope, std::string(call.callee)});
    } else {
      maybe_imported.push_back({call.callee, {}, call.span, call.scope, call.scalar_arguments});
    }
  }
  for (const PendingCall& call : pending_dotted_calls_)
    maybe_imported.push_back({call.callee, {}, call.span, call.scope, call.scalar_arguments});
  for (const PendingMethodCall& call : pending_method_calls_) {
    // Calling an instance runs its forward (a Module) or its __call__ (any other object: a
    // loss scaler that runs backward and the optimizer step).
    const bool instance = call.method == "forward";
    if (call.klass.find('.') == std::string::npos) {
      auto it = function_by_name_.find(call.klass + "." + call.method);
      if (it == function_by_name_.end() && instance)
        it = function_by_name_.find(call.klass + ".__call__");
      if (it != function_by_name_.end()) {
        m_.calls.push_back({it->second, call.span, call.scope, call.scalar_arguments});
        continue;
      }
    }
    maybe_imported.push_back(
        {call.klass, call.method, call.span, call.scope, call.scalar_arguments});
    if (instance)
      maybe_imported.push_back(
          {call.klass, "__call__", call.span, call.scope, call.scalar_arguments});
  }
  // Calls that reach a backward in another file (the engine found them in an earlier round).
  for (const MaybeImported& call : maybe_imported) {
    if (std::binary_search(inbound_.training_calls.begin(), inbound_.training_calls.end(),
                           call.span.begin)) {
      m_.events.push_back({StepEventKind::Backward, call.span, call.scope, {}});
    }
  }
  for (const PendingFlow& flow : pending_flows_) {
    auto callee = imported_target(flow.callee);
    auto source = callee ? imported_target(flow.source) : std::nullopt;
    if (!source) continue;
    m_.argument_flows.push_back({callee->first, callee->second, flow.position, flow.keyword,
                                 source->first, source->second});
  }
  for (const PendingArgument& argument : pending_arguments_) {
    if (argument.what == Handed::Model && loss_names_.count(argument.name)) continue;
    if (auto callee = imported_target(argument.callee))
      m_.handed_arguments.push_back(
          {callee->first, callee->second, argument.position, argument.keyword, argument.what});
  }
  for (const auto& [callee, loop] : iterated_call_results_) {
    if (auto target = imported_target(callee))
      m_.imported_loaders.push_back({target->first, target->second, loop});
  }
  for (const ExternalCaller& caller : inbound_.callers) {
    auto it = function_by_name_.find(caller.function);
    if (it == function_by_name_.end()) continue;
    m_.external_callers.push_back(caller);
    m_.external_callers.back().index = it->second;
  }
  m_.cuda_elsewhere = inbound_.cuda;
  m_.imported_constants = std::move(imported_constants_);
  m_.constants.assign(constants_.begin(), constants_.end());
  std::sort(m_.constants.begin(), m_.constants.end());
  for (const std::string& name : inbound_.loader_functions) {
    if (auto it = loader_functions_.find(name); it != loader_functions_.end())
      m_.loaders[it->second].feeds_step_loop_elsewhere = true;
    if (auto it = tuple_loader_functions_.find(name); it != tuple_loader_functions_.end()) {
      for (int32_t loader : it->second) m_.loaders[loader].feeds_step_loop_elsewhere = true;
    }
  }
  for (const PendingConvert& c : tensor_converts_) {
    std::string spelling = std::string(text(field(c.call, s_.f_function))) + "(" +
                           std::string(text(c.argument).substr(0, 40)) + ")";
    m_.syncs.push_back(
        {SyncKind::Convert, span(c.call), c.scope, std::move(spelling), c.inside_output});
  }
  std::sort(m_.syncs.begin(), m_.syncs.end(),
            [](const HostSync& a, const HostSync& b) { return a.span.begin < b.span.begin; });
  drop_syncs_no_caller_reaches();
  mark_device_datasets();
  mark_unwrapping_collates();
  for (const DeviceMove& move : m_.moves) {
    if (move.target != DeviceTarget::Cpu && model_names_.count(move.receiver)) {
      m_.moved_models.push_back(move.receiver);
    }
  }
  for (std::string_view name : handed_to_framework_) {
    if (model_names_.count(name)) m_.moved_models.emplace_back(name);
  }
  for (std::string_view name : frozen_models_) {
    if (frozen(name)) m_.frozen_models.emplace_back(name);
  }
  std::sort(m_.frozen_models.begin(), m_.frozen_models.end());
  std::sort(m_.moved_models.begin(), m_.moved_models.end());
  m_.moved_models.erase(std::unique(m_.moved_models.begin(), m_.moved_models.end()),
                        m_.moved_models.end());
  // Items a MONAI transform moves arrive on the device, whatever loader (`ThreadDataLoader`)
  // batches them.
  if (items_to_device_) pending_inputs_.clear();
  for (const PendingInput& p : pending_inputs_) {
    bool model = model_names_.count(p.callee) && !loss_names_.count(p.callee);
    bool loss = loss_names_.count(p.callee) || is_functional_loss(p.callee);
    if (!model && !loss) continue;
    m_.unmoved_inputs.push_back(p.input);
    m_.unmoved_inputs.back().into_loss = loss;
  }
  for (auto& [value, acc, graphless] : pending_accumulations_) {
    acc.carries_graph = !graphless && is_graph_expr(value);
    if (is_tensor_expr(value) || acc.carries_graph) m_.accumulations.push_back(std::move(acc));
  }
  std::vector<std::string> models(model_names_.begin(), model_names_.end());
  std::sort(models.begin(), models.end());
  for (const std::string& name : models) {
    if (loss_names_.count(name) || name == "self") continue;
    Model model;
    model.name = name;
    if (auto it = first_assignment_.find(name); it != first_assignment_.end())
      model.defined = it->second;
    model.moved = std::binary_search(m_.moved_models.begin(), m_.moved_models.end(), name) ||
                  on_device_names_.count(name) > 0 || cuda_by_default_;
    model.compiled = compiled_names_.count(name) > 0;
    model.passed_in = passed_in_names_.count(name) > 0 ||
                      (!first_assignment_.count(name) && parameter_names_.count(name) > 0);
    // `model = load_model(path)`: whether the imported factory places it is for the engine to
    // find out, asked every round, known or not (an answer not asked for again is taken back).
    if (!model.passed_in) {
      if (auto made = call_results_.find(name); made != call_results_.end()) {
        if (auto target = imported_target(made->second))
          m_.model_calls.push_back({target->first, target->second, made->second});
      }
    }
    m_.models.push_back(std::move(model));
  }
  for (const ModelDtype& d : model_dtypes_) {
    if (model_names_.count(d.name)) m_.file_level_amp = d.reduced;
  }
  if (reduced_module_) m_.file_level_amp = true;
  // `accelerator.backward(loss)` with the Accelerator built elsewhere (a project helper, a
  // caller): its mixed precision is not known here, so AMP may be in effect.
  if (framework_backward_ && !framework_built_) m_.file_level_amp = true;
  judge_parameter_guards();
  note_forward_helpers();
  m_.classify();
  for (Loop& loop : m_.loops) {
    if (loop.kind == LoopKind::Evaluation) note_loop_lines(loop);
  }
  for (OutputCall& out : m_.outputs) {
    const bool counted = std::any_of(m_.loops.begin(), m_.loops.end(), [&](const Loop& loop) {
      return loop.scope == out.scope && !loop.counter.empty();
    });
    if (counted) note_output_lines(out);
  }
  for (const auto& [key, function] : function_by_name_) {
    if (m_.reaches_backward(function)) m_.training_functions.push_back(key);
  }
  std::sort(m_.training_functions.begin(), m_.training_functions.end());
  m_.device_functions.assign(device_functions_.begin(), device_functions_.end());
  std::sort(m_.device_functions.begin(), m_.device_functions.end());
  m_.unwrapping_functions.assign(unwrapping_functions_.begin(), unwrapping_functions_.end());
  std::sort(m_.unwrapping_functions.begin(), m_.unwrapping_functions.end());
  for (const std::string& name : host_returns_) {
    if (!other_returns_.count(name)) m_.host_functions.push_back(name);
  }
  std::sort(m_.host_functions.begin(), m_.host_functions.end());
  m_.placed_functions.assign(placed_functions_.begin(), placed_functions_.end());
  std::sort(m_.placed_functions.begin(), m_.placed_functions.end());
  // Only a call made per step makes the function it calls per step (the engine links no
  // other). The rest are offered as probes: one that reaches a backward is a step event, and
  // may make its loop a step loop (`run_step()` calling `trainer.optimize()`).
  // Most of them are calls of imported names: reserved, the records are not moved as it grows.
  m_.imported_calls.reserve(m_.imported_calls.size() + maybe_imported.size());
  m_.probe_calls.reserve(m_.probe_calls.size() + maybe_imported.size());
  for (const MaybeImported& call : maybe_imported) {
    auto target = imported_target(call.callee);
    if (!m_.step_context(call.scope).per_step()) {
      if (!target) continue;
      if (!call.method.empty()) target->second.append(".").append(call.method);
      m_.probe_calls.push_back({std::move(target->first), std::move(target->second), call.span,
                                call.scope, call.scalar_arguments});
      continue;
    }
    if (!target) {
      // A plain name from no import of its own may come from a `from m import *`: offered to
      // each such module, the engine links it where the name is defined.
      if (call.callee.find('.') != std::string_view::npos) continue;
      std::string symbol(call.callee);
      if (!call.method.empty()) symbol.append(".").append(call.method);
      for (const std::string& module : star_modules_)
        m_.imported_calls.push_back({module, symbol, call.span, call.scope, call.scalar_arguments});
      continue;
    }
    if (!call.method.empty()) target->second.append(".").append(call.method);
    m_.imported_calls.push_back({std::move(target->first), std::move(target->second), call.span,
                                 call.scope, call.scalar_arguments});
  }
  // Branches and shapes are kept only where StepModel::unguarded_per_step holds; the
  // tensor-ness of the rest is not worked out.
  auto reported = [&](ScopeId scope) { return m_.unguarded_per_step(scope); };
  judge_parameter_conditions();
  for (const auto& [condition, scope] : tensor_conditions_) {
    if (reported(scope))
      m_.tensor_conditions.push_back({span(condition), scope, std::string(text(condition))});
  }
  for (const auto& [subscript, scope] : mask_indexings_) {
    if (!reported(scope)) continue;
    Node index = field(subscript, s_.f_subscript);
    // `logits[valid], y[valid]`: one mask, one finding for the line.
    if (!m_.dynamic_shapes.empty() && last_mask_ == text(index) &&
        src_.substr(m_.dynamic_shapes.back().span.end,
                    subscript.start() - m_.dynamic_shapes.back().span.end)
                .find('\n') == std::string_view::npos) {
      continue;
    }
    last_mask_ = text(index);
    std::string spelling(text(subscript).substr(0, 60));
    m_.dynamic_shapes.push_back({span(subscript), scope, std::move(spelling)});
  }
  for (const auto& [call, scope] : dynamic_methods_) {
    if (!reported(scope)) continue;
    std::string spelling = ".";
    spelling.append(method_of(call)).append("()");
    m_.dynamic_shapes.push_back({span(call), scope, std::move(spelling)});
  }
  std::sort(
      m_.dynamic_shapes.begin(), m_.dynamic_shapes.end(),
      [](const DynamicShape& a, const DynamicShape& b) { return a.span.begin < b.span.begin; });
  // An accumulator reset in the step loop's body (or deeper) lives for one step only; so does
  // one bound afresh in a helper the step loop calls, whose loops are inner loops of the step.
  std::erase_if(m_.accumulations, [&](const Accumulation& a) {
    int32_t step = m_.step_context(a.scope).loop;
    if (a.bound_per_call && (step < 0 || m_.loops[step].function != m_.loops[a.loop].function))
      return true;
    for (int32_t reset : a.reset_in) {
      for (ScopeId s = m_.loops[reset].scope; s != kNoScope; s = m_.scopes[s].parent) {
        if (m_.scopes[s].kind == ScopeKind::Loop && m_.scopes[s].index == step) return true;
      }
    }
    return false;
  });
  // Summed over an inner loop and then backpropagated (per-token losses of one sequence within
  // a step, an episode's log-probabilities in actor-critic code), directly or through a name
  // computed from it: the graph is needed, and consumed, not kept for nothing.
  std::erase_if(m_.accumulations, [&](const Accumulation& a) {
    if (a.target.find('.') != std::string::npos) return false;
    const Loop& loop = m_.loops[a.loop];
    auto reads_target = [&](std::string_view name) {
      if (name == a.target) return true;
      const auto it = derived_targets_.find(derived_key(loop.function, name));
      return it != derived_targets_.end() &&
             std::find(it->second.begin(), it->second.end(), a.target) != it->second.end();
    };
    return std::any_of(backwards_.begin(), backwards_.end(), [&](const Backward& b) {
      return b.function == loop.function && b.function >= 0 && b.span.begin >= loop.span.end &&
             std::any_of(b.names.begin(), b.names.end(), reads_target);
    });
  });
}

Node Builder::node_at(Span span, TSSymbol kind) const {
  Node n = root_;
  for (int depth = 0; !null(n) && depth < kMaxDepth; ++depth) {
    if (n.start() == span.begin && n.end() == span.end && is(n, kind)) return n;
    Node inside;
    for (Node c = n.first_child(); !null(c); c = c.next_sibling()) {
      if (c.start() <= span.begin && span.end <= c.end()) inside = c;
    }
    n = inside;
  }
  return {};
}

bool Builder::line_layout(Node n, std::string& indent, std::vector<uint32_t>& lines) const {
  const uint32_t begin = n.start(), end = n.end();
  const size_t line = src_.rfind('\n', begin == 0 ? 0 : begin - 1);
  const size_t line_start = begin == 0 || line == std::string_view::npos ? 0 : line + 1;
  const std::string_view before = src_.substr(line_start, begin - line_start);
  if (before.find_first_not_of(" \t") != std::string_view::npos) return false;
  // Strings that run over lines: their lines are the string's value, not code to indent.
  std::vector<std::pair<uint32_t, uint32_t>> strings;
  std::vector<Node> stack{n};
  while (!stack.empty()) {
    Node c = stack.back();
    stack.pop_back();
    if (is(c, s_.string)) {
      if (text(c).find('\n') != std::string_view::npos) strings.emplace_back(c.start(), c.end());
      continue;
    }
    for (Node k = c.first_child(); !null(k); k = k.next_sibling()) stack.push_back(k);
  }
  indent = std::string(before);
  for (uint32_t at = begin; at < end; ++at) {
    if (src_[at] != '\n' || at + 1 >= end) continue;
    const uint32_t start = at + 1;
    if (src_[start] == '\n' || src_[start] == '\r') continue;
    const bool in_string = std::any_of(strings.begin(), strings.end(), [&](const auto& s) {
      return s.first < start && start < s.second;
    });
    if (!in_string) lines.push_back(start);
  }
  return true;
}

void Builder::note_loop_lines(Loop& loop) const {
  Node n = node_at(loop.span, s_.for_statement);
  if (null(n)) n = node_at(loop.span, s_.while_statement);
  std::string indent;
  if (!null(n) && line_layout(n, indent, loop.body_lines)) loop.indent = std::move(indent);
}

void Builder::note_output_lines(OutputCall& out) const {
  const Node statement = node_at(out.span, s_.expression_statement);
  if (null(statement) || !is(statement.parent(), s_.block)) return;
  // Alone on its last line too: nothing but a comment after it (`print(x); y = 1` is not).
  const size_t after = src_.find_first_not_of(" \t", statement.end());
  if (after != std::string_view::npos && src_[after] != '\n' && src_[after] != '\r' &&
      src_[after] != '#')
    return;
  std::string indent;
  std::vector<uint32_t> lines;
  if (!line_layout(statement, indent, lines)) return;
  out.indent = std::move(indent);
  out.further_lines = std::move(lines);
}

std::unique_ptr<FlatTree> parse(std::string_view text) {
  return std::make_unique<FlatTree>(tree_sitter_python(), text, text_parts(text, kPartBytes));
}

StepModel build_model(std::string_view text, const FlatTree& tree, const Inbound& inbound) {
  Builder builder(text, inbound);
  return builder.build(tree);
}

StepModel build_model(std::string_view text, const Inbound& inbound) {
  return build_model(text, *parse(text), inbound);
}

}  // namespace gpulint::python
