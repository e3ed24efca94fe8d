// Declarations and values of the C++ front end's walk (builder.h): bindings, parts, graphs and
// accumulations.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "analyzer/cpp/builder.h"

namespace gpulint::cpp {

std::string Builder::declared_name(TSNode declarator) const {
  if (is(declarator, "init_declarator")) declarator = field(declarator, "declarator");
  if (is(declarator, "function_declarator")) declarator = field(declarator, "declarator");
  if (is(declarator, "reference_declarator") || is(declarator, "pointer_declarator")) {
    if (named_count(declarator) > 0) declarator = named(declarator, named_count(declarator) - 1);
  }
  return is(declarator, "identifier") ? std::string(text(declarator)) : std::string();
}

void Builder::on_declaration(TSNode n, int depth) {
  TSNode type_node = field(n, "type");
  const std::string type = compact(type_node);
  visit(type_node, depth + 1);
  for (uint32_t i = 0, c = named_count(n); i < c; ++i) {
    TSNode d = named(n, i);
    if (ts_node_eq(d, type_node) || is(d, "type_qualifier") || is(d, "storage_class_specifier"))
      continue;
    std::string name = declared_name(d);
    // `T x(args)` (a function_declarator to the grammar), `T x{args}`, `T x = value`.
    TSNode value{}, args{};
    if (is(d, "init_declarator")) {
      value = field(d, "value");
      if (is(value, "argument_list") || is(value, "initializer_list")) std::swap(value, args);
    } else if (is(d, "function_declarator")) {
      args = field(d, "parameters");
    }
    if (!null(value)) visit(value, depth + 1);
    if (!null(args)) visit(args, depth + 1);
    if (name.empty()) continue;
    first_declaration_.emplace(name, span(d));
    if (!loop_stack_.empty()) {
      loop_stack_.back().bound.insert(name);
      loop_stack_.back().cpu_batch.erase(name);
    }
    on_binding(n, name, type, value, args);
    if (!null(value)) note_parts(name, value, 0);
    if (!null(args)) note_part_arguments(name, args, 0);
  }
}

// The names a call in `value` is given, as such or as `name.ptr()`, are parts of `holder`.
void Builder::note_parts(const std::string& holder, TSNode value, int depth) {
  if (null(value) || depth > 8) return;
  if (is(value, "call_expression")) {
    note_part_arguments(holder, field(value, "arguments"), depth + 1);
    note_parts(holder, field(value, "function"), depth + 1);
    return;
  }
  for (uint32_t i = 0, c = named_count(value); i < c; ++i)
    note_parts(holder, named(value, i), depth + 1);
}

void Builder::note_part_arguments(const std::string& holder, TSNode args, int depth) {
  if (null(args) || depth > 8) return;
  for (uint32_t i = 0, c = named_count(args); i < c; ++i) {
    TSNode a = unparen(named(args, i));
    if (is(a, "call_expression")) {
      TSNode fn = field(a, "function");
      if (is(fn, "field_expression") && text(field(fn, "field")) == "ptr" &&
          named_count(field(a, "arguments")) == 0) {
        a = unparen(field(fn, "argument"));
      }
    }
    if (is(a, "identifier")) {
      if (text(a) != holder) parts_[holder].emplace(text(a));
    } else {
      note_parts(holder, a, depth + 1);
    }
  }
}

// What a name declared as `type name(args)` or `type name = value` holds.
void Builder::on_binding(TSNode decl, const std::string& name, const std::string& type,
                         TSNode value, TSNode args) {
  std::string_view init =
      null(value) ? (null(args) ? std::string_view{} : text(args)) : text(value);
  if (last_component(type) == "Device" ||
      (type == "auto" && init.find("Device(") != std::string_view::npos)) {
    bool cuda = mentions_cuda(init), cpu = mentions_cpu(init);
    device_names_[name] = cuda && !cpu   ? DeviceTarget::Cuda
                          : cpu && !cuda ? DeviceTarget::Cpu
                                         : DeviceTarget::MaybeCuda;
  }
  if (type.find("optim::") != std::string::npos || init.find("optim::") != std::string_view::npos) {
    optimizer_names_.insert(name);
    note_parameters_owner(init);
  }
  if (is_loss_class(type)) loss_names_.insert(name);
  if (copies_to_host(init)) host_names_.insert(name);
  if (is_module_class(type) && !null(args) && compact(args) != "{nullptr}" &&
      compact(args) != "(nullptr)") {
    add_module(decl, type, args);
  }
  if (is_loader_options(type)) {
    int32_t loader = add_loader(decl, field(decl, "type"), args);
    loader_names_[name] = loader;
  }
  if (!redeclared_.count(name)) {
    std::optional<int64_t> constant = null(value) ? std::nullopt : integer(value);
    if (constant && !constants_.count(name)) {
      constants_[name] = *constant;
    } else if (constants_.erase(name) || constant) {
      redeclared_.insert(name);
    }
  }
  if (!null(value)) {
    // A loader, or loader options, built by this value (a chain starts where its call does).
    if (auto it = loader_of_call_.find(ts_node_start_byte(value)); it != loader_of_call_.end())
      loader_names_[name] = it->second;
    if (is_graph_expr(value)) graph_names_.insert(name);
    if (!loop_stack_.empty() && reads_cpu_batch(value)) loop_stack_.back().cpu_batch.insert(name);
  }
}

// `torch::optim::SGD opt(model->parameters(), 0.01)`: `model` is trained.
void Builder::note_parameters_owner(std::string_view init) {
  size_t at = init.find("parameters()");
  if (at == std::string_view::npos) return;
  size_t end = at;
  while (end > 0 && (init[end - 1] == '.' || init[end - 1] == '>' || init[end - 1] == '-')) --end;
  size_t begin = end;
  while (begin > 0 &&
         (std::isalnum(static_cast<unsigned char>(init[begin - 1])) || init[begin - 1] == '_'))
    --begin;
  if (begin < end) {
    std::string owner(init.substr(begin, end - begin));
    model_names_.insert(owner);
    trained_names_.insert(std::move(owner));
  }
}

// A value with autograd history: the model's output, a loss, or arithmetic on them.
bool Builder::is_graph_expr(TSNode n, int depth) const {
  if (null(n) || depth > 50) return false;
  n = unparen(n);
  if (is(n, "identifier")) return graph_names_.count(std::string(text(n))) > 0;
  if (is(n, "call_expression")) {
    TSNode function = field(n, "function");
    std::string_view method = method_name(function);
    if (method == "detach" || method == "item" || method == "cpu") return false;
    if (method == "forward") return true;
    std::string callee = callee_name(function);
    if (is_loss_function(callee)) return true;
    if (model_names_.count(callee) || loss_names_.count(callee)) return true;
    if (!method.empty()) return is_graph_expr(field(function, "argument"), depth + 1);
    return false;
  }
  if (is(n, "binary_expression"))
    return is_graph_expr(field(n, "left"), depth + 1) ||
           is_graph_expr(field(n, "right"), depth + 1);
  return false;
}

bool Builder::reads_cpu_batch(TSNode value) const {
  if (loop_stack_.empty()) return false;
  value = unparen(value);
  if (!is(value, "identifier") && !is(value, "field_expression")) return false;
  return loop_stack_.back().cpu_batch.count(root_name(value)) > 0;
}

// Does a call in a loop take data the loop makes? Not when every argument is a name the loop
// neither declares nor assigns (`model->forward(input)` timed on one input): such a loop
// calls the model but runs no steps over data.
bool Builder::takes_loop_data(TSNode args) const {
  if (loop_stack_.empty()) return true;
  const uint32_t argc = null(args) ? 0 : named_count(args);
  for (uint32_t i = 0; i < argc; ++i) {
    const std::string root = root_name(named(args, i));
    if (root.empty() || counter_names_.count(root)) return true;
    for (const LoopState& state : loop_stack_) {
      if (state.bound.count(root) || state.assigned.count(root) || state.cpu_batch.count(root))
        return true;
    }
  }
  return false;
}

bool Builder::copies_to_host(std::string_view expr) const {
  return expr.find(".cpu()") != std::string_view::npos ||
         expr.find("kCPU") != std::string_view::npos;
}

bool Builder::on_host(TSNode receiver) const {
  return copies_to_host(text(receiver)) || host_names_.count(root_name(receiver)) > 0;
}

void Builder::on_assignment(TSNode n, int depth) {
  TSNode left = field(n, "left"), right = field(n, "right");
  visit_children(n, depth);
  std::string_view op = text(field(n, "operator"));
  std::string target = root_name(left);
  if (op == "+=" || op == "-=") {
    note_counter(left);
    if (is_graph_expr(right)) note_accumulation(n, target, right);
    return;
  }
  if (!target.empty() && constants_.erase(target)) redeclared_.insert(target);
  // `torch::Device device(torch::kCPU); if (cuda) device = torch::Device(torch::kCUDA);`:
  // a device that differs between assignments may be CUDA.
  if (auto it = device_names_.find(target); op == "=" && it != device_names_.end()) {
    if (device_of(right) != it->second) it->second = DeviceTarget::MaybeCuda;
  }
  if (op == "=" && !target.empty()) {
    note_parts(target, right, 0);
    for (LoopState& state : loop_stack_) state.assigned.insert(target);
    if (is_graph_expr(right)) graph_names_.insert(target);
    if (copies_to_host(text(right))) {
      host_names_.insert(target);
    } else {
      host_names_.erase(target);
    }
    if (!loop_stack_.empty()) {
      if (reads_cpu_batch(right)) {
        loop_stack_.back().cpu_batch.insert(target);
      } else {
        loop_stack_.back().cpu_batch.erase(target);
      }
    }
  }
}

void Builder::note_accumulation(TSNode n, const std::string& target, TSNode value) {
  if (target.empty() || loop_stack_.empty()) return;
  // A name declared in the loop body lives for one step only.
  for (const LoopState& state : loop_stack_) {
    if (state.bound.count(target)) return;
  }
  Accumulation a;
  a.span = span(n);
  a.value = span(value);
  a.scope = scope_;
  a.loop = current_loop();
  a.target = target;
  a.value_name = std::string(text(value));
  a.value_primary = is(value, "identifier") || is(value, "field_expression") ||
                    is(value, "call_expression") || is(value, "subscript_expression") ||
                    is(value, "parenthesized_expression");
  a.carries_graph = true;
  m_.accumulations.push_back(std::move(a));
}

// OutputCall::indent of the output just added, when it is the whole of a statement that
// begins its line (a fix can put it under a guard).
void Builder::note_output_statement(TSNode n) {
  const TSNode statement = ts_node_parent(n);
  const uint32_t begin = ts_node_start_byte(n);
  if (!is(statement, "expression_statement") || ts_node_start_byte(statement) != begin) return;
  const size_t newline = src_.rfind('\n', begin == 0 ? 0 : begin - 1);
  const size_t line_start = begin == 0 || newline == std::string_view::npos ? 0 : newline + 1;
  const std::string_view indent = src_.substr(line_start, begin - line_start);
  if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
  m_.outputs.back().indent = std::string(indent);
}

// `std::cout << a << b`: one output, reported at its outermost `<<`.
void Builder::on_binary(TSNode n, int depth) {
  if (text(field(n, "operator")) == "<<" && !in_output_) {
    TSNode left = n;
    while (is(left, "binary_expression") && text(field(left, "operator")) == "<<")
      left = field(left, "left");
    std::string stream = compact(left);
    if (is_console_stream(stream)) {
      m_.outputs.push_back({OutputKind::Console, span(n), scope_, stream, {}, {}});
      note_output_statement(n);
      in_output_ = true;
      visit_children(n, depth);
      in_output_ = false;
      return;
    }
  }
  visit_children(n, depth);
}

}  // namespace gpulint::cpp
