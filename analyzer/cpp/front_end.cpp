#include "analyzer/cpp/front_end.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/cpp/names.h"
#include "analyzer/cpp/resolver.h"
#include "analyzer/syntax_tree.h"

#include "analyzer/cpp/builder.h"

extern "C" const TSLanguage* tree_sitter_cpp(void);

namespace gpulint::cpp {

std::atomic<size_t> syntax_only_files{0};
std::atomic<size_t> syntax_recovered_files{0};

StepModel Builder::build() {
  const SyntaxTree tree = parse_tree(tree_sitter_cpp(), src_);
  if (!tree) {
    m_.parse_errors.push_back({{0, 0}, "the parser gave up on this file"});
    return std::move(m_);
  }
  TSNode root = ts_tree_root_node(tree.get());
  scope_ = m_.add_scope(ScopeKind::Module, kNoScope);
  if (ts_node_has_error(root)) note_first_error(root);
  visit_block(root, 0);
  finish();
  return std::move(m_);
}

void Builder::visit_children(TSNode n, int depth) {
  for (uint32_t i = 0, count = named_count(n); i < count; ++i) visit(named(n, i), depth + 1);
}

// A block's statements in order: an RAII guard (`torch::NoGradGuard g;`) or
// `at::autocast::set_enabled(true)` covers the statements after it, up to the block's end.
void Builder::visit_block(TSNode n, int depth) {
  const ScopeId saved = scope_;
  for (uint32_t i = 0, count = named_count(n); i < count; ++i) {
    TSNode child = named(n, i);
    visit(child, depth + 1);
    if (uint8_t region = region_opened_by(child)) {
      open(ScopeKind::With);
      m_.scopes[scope_].regions = region;
    }
  }
  scope_ = saved;
}

uint8_t Builder::region_opened_by(TSNode stmt) const {
  if (is(stmt, "declaration")) {
    std::string type = compact(field(stmt, "type"));
    if (is_no_grad_guard(type)) return kRegionNoGrad;
    // `torch::AutoGradMode mode(false);`
    if (last_component(type) == "AutoGradMode" && contains(stmt, "false")) return kRegionNoGrad;
    return kRegionNone;
  }
  if (is(stmt, "expression_statement") && named_count(stmt) == 1) {
    TSNode call = named(stmt, 0);
    if (!is(call, "call_expression")) return kRegionNone;
    std::string callee = callee_name(field(call, "function"));
    if (is_autocast_enable(callee) && compact(field(call, "arguments")) == "(true)")
      return kRegionAutocast;
  }
  return kRegionNone;
}

void Builder::visit(TSNode n, int depth) {
  if (null(n)) return;
  if (depth > kMaxDepth) {
    if (m_.parse_errors.empty())
      m_.parse_errors.push_back({span(n), "nesting too deep to analyse"});
    return;
  }
  std::string_view type = ts_node_type(n);
  if (const MacroLoop* loop = macro_loop_statement(n)) {
    on_macro_loop(n, *loop, depth);
  } else if (type == "comment") {
    on_comment(n);
  } else if (type == "function_definition") {
    if (const MacroLoop* loop = macro_loop(field(n, "body"))) {
      on_macro_loop(field(n, "body"), *loop, depth);
    } else {
      on_function(n, depth);
    }
  } else if (type == "compound_statement") {
    if (const MacroLoop* loop = macro_loop(n)) {
      on_macro_loop(n, *loop, depth);
    } else {
      visit_block(n, depth);
    }
  } else if (type == "for_range_loop" || type == "for_statement" || type == "while_statement" ||
             type == "do_statement") {
    on_loop(n, depth);
  } else if (type == "if_statement") {
    on_if(n, depth);
  } else if (type == "switch_statement") {
    visit(field(n, "condition"), depth + 1);
    with_branch(field(n, "body"), Guard::Data, depth);
  } else if (type == "conditional_expression") {
    visit(field(n, "condition"), depth + 1);
    with_branch(field(n, "consequence"), Guard::Data, depth);
    with_branch(field(n, "alternative"), Guard::Data, depth);
  } else if (type == "catch_clause") {
    const ScopeId saved = scope_;
    open(ScopeKind::Handler);
    visit_children(n, depth);
    scope_ = saved;
  } else if (type == "field_declaration") {
    on_field_declaration(n);
    visit_children(n, depth);
  } else if (type == "declaration") {
    on_declaration(n, depth);
  } else if (type == "call_expression") {
    on_call(n, depth);
  } else if (type == "binary_expression") {
    on_binary(n, depth);
  } else if (type == "assignment_expression") {
    on_assignment(n, depth);
  } else if (type == "update_expression") {
    note_counter(field(n, "argument"));
    visit_children(n, depth);
  } else if (type == "qualified_identifier" || type == "identifier") {
    // `torch::kCUDA` anywhere puts the file in CUDA context (RULES.md).
    if (!in_move_ && last_component(text(n)) == "kCUDA")
      m_.moves.push_back({span(n), scope_, DeviceTarget::Cuda, "", false});
  } else {
    visit_children(n, depth);
  }
}

void Builder::on_comment(TSNode n) {
  uint32_t b = ts_node_start_byte(n);
  uint32_t line_start = b;
  while (line_start > 0 && src_[line_start - 1] != '\n') --line_start;
  bool own_line = std::all_of(src_.begin() + line_start, src_.begin() + b,
                              [](char c) { return c == ' ' || c == '\t'; });
  m_.comments.push_back({span(n), own_line});
}

void Builder::with_branch(TSNode body, Guard guard, int depth) {
  if (null(body)) return;
  const ScopeId saved = scope_;
  open(ScopeKind::Branch);
  m_.scopes[scope_].guard = guard;
  visit(body, depth + 1);
  scope_ = saved;
}

// The declared name of a function: `forward` for `Net::forward`, `train` for `train<T>`.
std::string Builder::function_name(TSNode declarator, int depth) const {
  if (null(declarator) || depth > 20) return {};
  if (is(declarator, "function_declarator"))
    return function_name(field(declarator, "declarator"), depth + 1);
  if (is(declarator, "reference_declarator") || is(declarator, "pointer_declarator")) {
    TSNode inner = field(declarator, "declarator");
    if (null(inner) && named_count(declarator) > 0)
      inner = named(declarator, named_count(declarator) - 1);
    return function_name(inner, depth + 1);
  }
  std::string name = compact(declarator);
  return std::string(last_component(name));
}

void Builder::note_parameters(const std::string& function, TSNode declarator) {
  for (int depth = 0; !null(declarator) && !is(declarator, "function_declarator") && depth < 20;
       ++depth)
    declarator = field(declarator, "declarator");
  TSNode list = field(declarator, "parameters");
  for (uint32_t i = 0, c = named_count(list); i < c; ++i) {
    std::string name = declared_name(field(named(list, i), "declarator"));
    if (!name.empty()) parameters_[name].emplace_back(function, i);
  }
}

void Builder::on_function(TSNode n, int depth) {
  TSNode body = field(n, "body");
  Function fn;
  fn.name = function_name(field(n, "declarator"));
  fn.span = span(n);
  fn.name_span = span(field(n, "declarator"));
  const int32_t index = static_cast<int32_t>(m_.functions.size());
  const ScopeId saved = scope_;
  const int32_t saved_function = function_;
  const bool saved_forward = in_forward_;
  fn.scope = open(ScopeKind::Function, index);
  function_by_name_.emplace(fn.name, index);
  note_parameters(fn.name, field(n, "declarator"));
  in_forward_ = fn.name == "forward";
  const bool saved_module_method = in_module_method_;
  in_module_method_ = in_forward_ || is_module_method(n);
  m_.functions.push_back(std::move(fn));
  function_ = index;
  std::vector<LoopState> saved_loops;
  saved_loops.swap(loop_stack_);
  if (!null(body)) visit(body, depth + 1);
  loop_stack_.swap(saved_loops);
  scope_ = saved;
  function_ = saved_function;
  in_forward_ = saved_forward;
  in_module_method_ = saved_module_method;
}

// A method of a module (`VQVAEImpl::sampling`, or defined in a class deriving from
// torch::nn::Module): its loops decode or sample inside the model, they are no step loops.
bool Builder::is_module_method(TSNode function) const {
  TSNode declarator = field(function, "declarator");
  while (!null(declarator) && !is(declarator, "function_declarator"))
    declarator = field(declarator, "declarator");
  if (!null(declarator) &&
      text(field(declarator, "declarator")).find("Impl::") != std::string_view::npos)
    return true;
  for (TSNode p = ts_node_parent(function); !null(p); p = ts_node_parent(p)) {
    if (!is(p, "class_specifier") && !is(p, "struct_specifier")) continue;
    const std::string_view name = text(field(p, "name"));
    TSNode bases{};
    for (uint32_t i = 0, c = named_count(p); i < c; ++i) {
      if (is(named(p, i), "base_class_clause")) bases = named(p, i);
    }
    return name.ends_with("Impl") ||
           (!null(bases) && text(bases).find("Module") != std::string_view::npos);
  }
  return false;
}

void Builder::finish() {
  for (auto& [scope, condition] : pending_guards_)
    m_.scopes[scope].guard = classify_guard(condition);
  note_models_passed_in();
  for (const PendingCall& call : pending_calls_) {
    const std::vector<int32_t> callees = functions_called(call);
    for (int32_t callee : callees) m_.calls.push_back({callee, call.span, call.scope});
    if (callees.empty() && !call.arguments.empty() && model_names_.count(call.callee))
      m_.events.push_back({StepEventKind::ModelCall, call.span, call.scope, call.callee});
  }
  std::sort(m_.syncs.begin(), m_.syncs.end(),
            [](const HostSync& a, const HostSync& b) { return a.span.begin < b.span.begin; });
  for (const DeviceMove& move : m_.moves) {
    if (move.target != DeviceTarget::Cpu && model_names_.count(move.receiver)) {
      m_.moved_models.push_back(move.receiver);
      trained_names_.insert(move.receiver);
    }
  }
  std::sort(m_.moved_models.begin(), m_.moved_models.end());
  m_.moved_models.erase(std::unique(m_.moved_models.begin(), m_.moved_models.end()),
                        m_.moved_models.end());
  for (const PendingInput& p : pending_inputs_) m_.unmoved_inputs.push_back(p.input);
  std::unordered_set<std::string> moved;  // every receiver sent to a device that may be CUDA
  for (const DeviceMove& move : m_.moves) {
    if (move.target != DeviceTarget::Cpu && !move.receiver.empty()) moved.insert(move.receiver);
  }
  // A whole moved moves its parts, and theirs (a few levels: a sampler holding a UNet).
  for (int level = 0; level < 4; ++level) {
    std::vector<std::string> more;
    for (const auto& [holder, parts] : parts_) {
      if (!moved.count(holder)) continue;
      for (const std::string& part : parts) {
        if (!moved.count(part)) more.push_back(part);
      }
    }
    if (more.empty()) break;
    moved.insert(more.begin(), more.end());
  }
  std::vector<std::string> models(trained_names_.begin(), trained_names_.end());
  std::sort(models.begin(), models.end());
  for (const std::string& name : models) {
    if (loss_names_.count(name)) continue;
    Model model;
    model.name = name;
    if (auto it = first_declaration_.find(name); it != first_declaration_.end())
      model.defined = it->second;
    model.moved = moved_model(name, moved, 0);
    m_.models.push_back(std::move(model));
  }
  m_.classify();
}

// The file's functions a call reaches. Clang, when it resolved the call, says which
// definition: the overload the arguments pick, the template an instantiation comes from, a
// helper named through its namespace, or none of the file's. By syntax a plain name reaches
// the file's first function of that name.
std::vector<int32_t> Builder::functions_called(const PendingCall& call) const {
  std::vector<int32_t> out;
  if (resolution_ != nullptr && resolution_->callee(call.span.begin, call.span.end)) {
    if (const auto* definitions = resolution_->definitions_of(call.span.begin, call.span.end)) {
      for (uint32_t offset : *definitions) {
        const int32_t function = function_named_at(offset);
        if (function >= 0 && std::find(out.begin(), out.end(), function) == out.end())
          out.push_back(function);
      }
    }
    return out;
  }
  if (call.callee.find("::") != std::string::npos) return out;
  if (auto it = function_by_name_.find(call.callee); it != function_by_name_.end())
    out.push_back(it->second);
  return out;
}

// The function whose declarator holds the name at `offset`. Its whole span would not do: a
// lambda's call operator is named inside the function that writes the lambda.
int32_t Builder::function_named_at(uint32_t offset) const {
  for (size_t i = 0; i < m_.functions.size(); ++i) {
    const Span& name = m_.functions[i].name_span;
    if (name.begin <= offset && offset < name.end) return static_cast<int32_t>(i);
  }
  return -1;
}

// `void fit(torch::nn::Linear& model, ...)` called as `fit(fc, ...)` with `fc` handed to an
// optimizer: `model` is that model too, and calling it is a step event.
void Builder::note_models_passed_in() {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, uses] : parameters_) {
      if (trained_names_.count(name)) continue;
      for (const auto& [function, position] : uses) {
        for (const PendingCall& call : pending_calls_) {
          if (call.callee == function && position < call.arguments.size() &&
              trained_names_.count(call.arguments[position]) && !trained_names_.count(name)) {
            trained_names_.insert(name);
            model_names_.insert(name);
            grew = true;
          }
        }
      }
    }
  }
}

// A model declared in this file is moved when a move names it. One that is only a parameter
// (`void train(Net& net, ...)`) is what its callers pass: moved when every argument this file
// passes for it is, and unknown, so silent, when no call here says what it is.
bool Builder::moved_model(const std::string& name, const std::unordered_set<std::string>& moved,
                          int depth) const {
  if (moved.count(name)) return true;
  auto it = parameters_.find(name);
  if (first_declaration_.count(name) || it == parameters_.end() || depth > 8) return false;
  for (const auto& [function, position] : it->second) {
    for (const PendingCall& call : pending_calls_) {
      if (call.callee != function || position >= call.arguments.size()) continue;
      const std::string& argument = call.arguments[position];
      if (!argument.empty() && argument != name && !moved_model(argument, moved, depth + 1))
        return false;
    }
  }
  return true;
}

namespace {

// Export macros (`TORCH_API at::Tensor f();`, `class C10_API Foo`) are not C++ to a parser
// without the preprocessor and would make most library headers parse errors. They are blanked
// out with spaces, so every byte offset (and so every reported span) stays the same.
std::string blank_export_macros(std::string_view text) {
  std::string out(text);
  auto word = [&](size_t i) {
    return std::isalnum(static_cast<unsigned char>(out[i])) || out[i] == '_';
  };
  for (size_t i = 0; i < out.size();) {
    if (!(out[i] >= 'A' && out[i] <= 'Z') || (i > 0 && word(i - 1))) {
      ++i;
      continue;
    }
    size_t end = i;
    bool upper = true;
    while (end < out.size() && word(end)) {
      upper &= !(out[end] >= 'a' && out[end] <= 'z');
      ++end;
    }
    std::string_view name(out.data() + i, end - i);
    size_t next = end;
    while (next < out.size() && (out[next] == ' ' || out[next] == '\t')) ++next;
    const bool call = next < out.size() && out[next] == '(';
    if (upper && !call &&
        (name.ends_with("_API") || name.ends_with("_EXPORT") || name.ends_with("_IMPORT"))) {
      std::fill(out.begin() + i, out.begin() + end, ' ');
    }
    i = end;
  }
  return out;
}

// `REPEAT(10) step();` is no C++ to tree-sitter, which may fold the invocation into the
// statement; with the invocation blanked out (offsets kept) the statement parses as itself.
void blank_macro_loop_headers(std::string& source, const Resolution* resolution) {
  if (resolution == nullptr) return;
  for (const auto& [body, loop] : resolution->macro_loops) {
    if (loop.block || loop.header_end > source.size()) continue;
    // Newlines stay, so the file's lines are the same to every later look at the text.
    for (uint32_t i = loop.header_begin; i < loop.header_end; ++i) {
      if (source[i] != '\n') source[i] = ' ';
    }
  }
}

}  // namespace

StepModel build_model(std::string_view text, const Resolution* resolution) {
  std::string source = blank_export_macros(text);
  blank_macro_loop_headers(source, resolution);
  Builder builder(source, resolution);
  StepModel model = builder.build();
  model.language = Language::Cpp;
  return model;
}

StepModel build_model_for_file(const std::string& path, std::string_view text) {
  const std::optional<Resolution> resolution = resolve_with_clang(path, text);
  if (!resolution) syntax_only_files.fetch_add(1, std::memory_order_relaxed);
  StepModel model = build_model(text, resolution ? &*resolution : nullptr);
  if (std::any_of(model.parse_errors.begin(), model.parse_errors.end(),
                  [](const ParseError& e) { return !e.in_source; })) {
    syntax_recovered_files.fetch_add(1, std::memory_order_relaxed);
  }
  if (resolution && !resolution->error.empty()) {
    // Clang's partial AST still resolves what it could; the rest is matched by spelling.
    const uint32_t at = std::min<uint32_t>(resolution->error_offset, text.size());
    model.parse_errors.insert(
        model.parse_errors.begin(),
        {{at, at}, resolution->error + "; calls it could not resolve are matched by name"});
  }
  return model;
}

}  // namespace gpulint::cpp
