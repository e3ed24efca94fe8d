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

extern "C" const TSLanguage* tree_sitter_cpp(void);

namespace gpulint::cpp {

std::atomic<size_t> syntax_only_files{0};
std::atomic<size_t> syntax_recovered_files{0};

namespace {

// Deeper nesting than this is generated code; it is reported as GL000, not walked.
constexpr int kMaxDepth = 400;

struct LoopState {
  int32_t loop = -1;
  std::unordered_set<std::string> bound;      // names declared in the loop body
  std::unordered_set<std::string> cpu_batch;  // loader batches (and parts) not yet moved
  std::unordered_set<std::string> assigned;   // names assigned in the loop body
};

struct PendingCall {
  std::string callee;
  Span span;
  ScopeId scope;
  std::vector<std::string> arguments;  // each argument's plain root name, or empty
};

struct PendingInput {
  std::string model;  // the model or loss called
  UnmovedInput input;
};

class Builder {
 public:
  Builder(std::string_view src, const Resolution* resolution)
      : src_(src), resolution_(resolution), libtorch_(mentions_libtorch(src)) {}

  StepModel build() {
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

 private:
  std::string_view src_;
  const Resolution* resolution_;  // Clang's names for calls; null on the syntax-only path
  // The file names LibTorch somewhere (`torch::`, `at::`, an include): otherwise its
  // `net.forward(...)` is another library's (OpenCV's `cv::dnn::Net`), not a model's.
  const bool libtorch_;
  StepModel m_;

  static bool mentions_libtorch(std::string_view src) {
    if (src.find("torch") != std::string_view::npos || src.find("ATen") != std::string_view::npos)
      return true;
    // `at::` and `c10::` as namespaces, not the end of another name (`cv::Mat::zeros`).
    for (std::string_view ns : {"at::", "c10::"}) {
      for (size_t at = src.find(ns); at != std::string_view::npos; at = src.find(ns, at + 1)) {
        const char before = at == 0 ? ' ' : src[at - 1];
        if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_') return true;
      }
    }
    return false;
  }
  ScopeId scope_ = kNoScope;
  int32_t function_ = -1;
  bool in_forward_ = false;
  bool in_module_method_ = false;
  std::unordered_set<std::string> cpu_fields_;  // settings fields that only ever hold the CPU
  std::unordered_set<std::string> host_names_;  // tensors last assigned a copy on the host  //
                                                // forward() or another method of a module class
  bool in_output_ = false;
  bool in_move_ = false;  // inside the argument of `.to(...)`: that call reports the device
  uint32_t open_statement_ = UINT32_MAX;  // the one-statement macro loop body being visited
  std::vector<LoopState> loop_stack_;
  // model_names_: called through `forward` or otherwise used as a model; trained_names_: also
  // handed to an optimizer or switched with train()/eval(), which makes it *the* model
  // (RULES.md "step event"), as GL302 needs.
  std::unordered_set<std::string> model_names_, trained_names_, optimizer_names_, loss_names_,
      graph_names_, counter_names_;
  std::unordered_map<std::string, DeviceTarget> device_names_;
  std::unordered_map<std::string, int32_t> loader_names_;  // loader (or its options) -> loader
  std::unordered_map<std::string, int32_t> function_by_name_;
  std::unordered_map<std::string, Span> first_declaration_;
  // A parameter's name -> (its function's name, its position), for models passed in.
  std::unordered_map<std::string, std::vector<std::pair<std::string, size_t>>> parameters_;
  // Names declared once with an integer literal; a second declaration makes the name ambiguous.
  std::unordered_map<std::string, int64_t> constants_;
  std::unordered_set<std::string> redeclared_;
  // What a value was built from (`auto sampler = DDIM(unet.ptr(), options)`: sampler -> unet):
  // moving the whole (`sampler->to(device)`) moves the modules it was given.
  std::unordered_map<std::string, std::unordered_set<std::string>> parts_;
  std::vector<PendingCall> pending_calls_;
  std::vector<PendingInput> pending_inputs_;
  std::vector<std::pair<ScopeId, TSNode>> pending_guards_;

  // ---- small helpers -------------------------------------------------------------------

  const std::string* resolved(TSNode call) const {
    return resolution_ ? resolution_->callee(ts_node_start_byte(call), ts_node_end_byte(call))
                       : nullptr;
  }

  // Null-safe, as grammar fields are absent in broken or macro-heavy code.
  std::string_view text(TSNode n) const {
    if (ts_node_is_null(n)) return {};
    uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return src_.substr(b, e - b);
  }
  static Span span(TSNode n) {
    return ts_node_is_null(n) ? Span{} : Span{ts_node_start_byte(n), ts_node_end_byte(n)};
  }
  static bool null(TSNode n) { return ts_node_is_null(n); }
  static bool is(TSNode n, std::string_view type) {
    return !null(n) && std::string_view(ts_node_type(n)) == type;
  }
  static TSNode field(TSNode n, const char* name) {
    if (ts_node_is_null(n)) return n;
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(strlen(name)));
  }
  static uint32_t named_count(TSNode n) {
    return ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
  }
  static TSNode named(TSNode n, uint32_t i) { return ts_node_named_child(n, i); }

  static ArgumentList argument_list(TSNode list) {
    ArgumentList out;
    if (!is(list, "argument_list")) return out;
    out.known = true;
    out.parens = span(list);
    for (uint32_t i = 0, c = ts_node_child_count(list); i < c; ++i) {
      TSNode child = ts_node_child(list, i);
      if (!ts_node_is_named(child)) {
        if (std::string_view(ts_node_type(child)) == "," && !out.items.empty())
          out.trailing_comma = span(child);
      } else if (!is(child, "comment")) {
        out.items.push_back({span(child), {}});
        out.trailing_comma = {};
      }
    }
    return out;
  }

  // Source text without whitespace: `torch :: zeros` and `torch::zeros` name one function.
  std::string compact(TSNode n) const {
    std::string out;
    for (char c : text(n)) {
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out.push_back(c);
    }
    return out;
  }

  TSNode unparen(TSNode n) const {
    while (is(n, "parenthesized_expression") && named_count(n) == 1) n = named(n, 0);
    return n;
  }

  // The name a call is made through: `torch::zeros`, `printf`, `make_data_loader` (template
  // arguments dropped); empty for method calls and anything else.
  std::string callee_name(TSNode function) const {
    if (is(function, "template_function")) function = field(function, "name");
    if (is(function, "identifier") || is(function, "qualified_identifier")) {
      std::string name = compact(function);
      // `torch::data::make_data_loader<torch::data::samplers::SequentialSampler>`: the
      // template arguments are not the name.
      if (size_t lt = name.find('<'); lt != std::string::npos) name.resize(lt);
      return name;
    }
    return {};
  }

  // `x.item<float>()` -> `item`; `model->forward(x)` -> `forward`.
  std::string_view method_name(TSNode function) const {
    if (!is(function, "field_expression")) return {};
    TSNode f = field(function, "field");
    // `x.template item<float>()` in a template: the `template` keyword wraps the name.
    if (is(f, "dependent_name") && named_count(f) == 1) f = named(f, 0);
    if (is(f, "template_method")) f = field(f, "name");
    return null(f) ? std::string_view{} : text(f);
  }

  // The plain name at the root of `a.b->c`, `(*a).b`, `a[0].b`; empty when there is none.
  std::string root_name(TSNode n, int depth = 0) const {
    if (null(n) || depth > 50) return {};
    n = unparen(n);
    if (is(n, "identifier") || is(n, "this")) return std::string(text(n));
    if (is(n, "field_expression")) return root_name(field(n, "argument"), depth + 1);
    if (is(n, "pointer_expression")) return root_name(field(n, "argument"), depth + 1);
    if (is(n, "subscript_expression")) return root_name(field(n, "argument"), depth + 1);
    return {};
  }

  // A call to resolve against the file's functions once they are all known, with the variable
  // each argument starts from.
  void add_pending_call(const std::string& callee, TSNode call, TSNode args, uint32_t argc) {
    std::vector<std::string> arguments;
    for (uint32_t i = 0; i < argc; ++i) arguments.push_back(root_name(named(args, i)));
    pending_calls_.push_back({callee, span(call), scope_, std::move(arguments)});
  }

  bool contains(TSNode n, std::string_view needle) const {
    return text(n).find(needle) != std::string_view::npos;
  }

  static bool mentions_cuda(std::string_view s) {
    return s.find("kCUDA") != std::string_view::npos ||
           s.find("\"cuda") != std::string_view::npos ||
           s.find("DeviceType::CUDA") != std::string_view::npos;
  }
  static bool mentions_cpu(std::string_view s) {
    return s.find("kCPU") != std::string_view::npos || s.find("\"cpu") != std::string_view::npos ||
           s.find("DeviceType::CPU") != std::string_view::npos;
  }

  // Where `.to(arg)` sends a tensor; nullopt when `arg` is not a device (a dtype, options).
  std::optional<DeviceTarget> device_of(TSNode arg) const {
    std::string_view s = text(arg);
    bool cuda = mentions_cuda(s), cpu = mentions_cpu(s);
    if (cuda && cpu) return DeviceTarget::MaybeCuda;
    if (cuda) return DeviceTarget::Cuda;
    if (cpu) return DeviceTarget::Cpu;
    std::string name = root_name(arg);
    if (auto it = device_names_.find(name); it != device_names_.end()) return it->second;
    if (name.find("device") != std::string::npos || name == "dev") return DeviceTarget::MaybeCuda;
    // `options.device`, `cfg->device`: a device held in a settings struct.
    if (is(arg, "field_expression") &&
        text(field(arg, "field")).find("device") != std::string_view::npos) {
      return cpu_fields_.count(std::string(text(field(arg, "field")))) ? DeviceTarget::Cpu
                                                                       : DeviceTarget::MaybeCuda;
    }
    return std::nullopt;
  }

  // `torch::DeviceType device = torch::kCPU;` in a settings struct, and nothing in the file
  // assigns the field again (`options.device = torch::kCUDA;`): the device it holds is the CPU,
  // whatever object it is read through.
  void on_field_declaration(TSNode n) {
    TSNode value = field(n, "default_value");
    const std::string_view name = text(field(n, "declarator"));
    if (null(value) || name.find("device") == std::string_view::npos) return;
    const std::string_view v = text(value);
    if (mentions_cpu(v) && !mentions_cuda(v) && !member_assigned(name))
      cpu_fields_.insert(std::string(name));
  }

  // `.name = ...` or `->name = ...` anywhere in the file (a comparison `==` is not one).
  bool member_assigned(std::string_view name) const {
    auto identifier = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
      size_t b = at, e = at + name.size();
      while (b > 0 && space(src_[b - 1])) --b;
      const bool member = (b > 0 && src_[b - 1] == '.') || (b > 1 && src_.substr(b - 2, 2) == "->");
      if (!member || (e < src_.size() && identifier(src_[e]))) continue;
      while (e < src_.size() && space(src_[e])) ++e;
      if (e < src_.size() && src_[e] == '=' && (e + 1 == src_.size() || src_[e + 1] != '=')) {
        return true;
      }
    }
    return false;
  }

  int32_t current_loop() const { return loop_stack_.empty() ? -1 : loop_stack_.back().loop; }

  ScopeId open(ScopeKind kind, int32_t index = -1) {
    ScopeId s = m_.add_scope(kind, scope_, index);
    scope_ = s;
    return s;
  }

  // Tree-sitter trips over a macro-written loop's header (`REPEAT(10) {` reads as a call
  // missing its `;`); where Clang says a loop is, that is not an error in the file.
  bool in_macro_loop_header(uint32_t offset) const {
    if (resolution_ == nullptr) return false;
    return std::any_of(resolution_->macro_loops.begin(), resolution_->macro_loops.end(),
                       [&](const auto& loop) {
                         return loop.second.header_begin <= offset && offset <= loop.first;
                       });
  }

  void note_first_error(TSNode root) {
    TSTreeCursor c = ts_tree_cursor_new(root);
    std::optional<TSNode> found;
    // Depth-first: the first ERROR or MISSING node in source order.
    for (bool more = true; more;) {
      TSNode n = ts_tree_cursor_current_node(&c);
      if (ts_node_is_error(n) || ts_node_is_missing(n)) {
        if (!in_macro_loop_header(ts_node_start_byte(n))) {
          found = n;
          break;
        }
      } else if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&c)) {
        continue;
      }
      while (!ts_tree_cursor_goto_next_sibling(&c)) {
        if (!ts_tree_cursor_goto_parent(&c)) {
          more = false;
          break;
        }
      }
    }
    ts_tree_cursor_delete(&c);
    if (!found) return;
    m_.parse_errors.push_back({span(*found),
                               ts_node_is_missing(*found)
                                   ? std::string("missing `") + ts_node_type(*found) + "`"
                                   : std::string("unexpected syntax"),
                               /*in_source=*/false});
  }

  // ---- the walk --------------------------------------------------------------------------

  void visit_children(TSNode n, int depth) {
    for (uint32_t i = 0, count = named_count(n); i < count; ++i) visit(named(n, i), depth + 1);
  }

  // A block's statements in order: an RAII guard (`torch::NoGradGuard g;`) or
  // `at::autocast::set_enabled(true)` covers the statements after it, up to the block's end.
  void visit_block(TSNode n, int depth) {
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

  uint8_t region_opened_by(TSNode stmt) const {
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

  void visit(TSNode n, int depth) {
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

  void on_comment(TSNode n) {
    uint32_t b = ts_node_start_byte(n);
    uint32_t line_start = b;
    while (line_start > 0 && src_[line_start - 1] != '\n') --line_start;
    bool own_line = std::all_of(src_.begin() + line_start, src_.begin() + b,
                                [](char c) { return c == ' ' || c == '\t'; });
    m_.comments.push_back({span(n), own_line});
  }

  void with_branch(TSNode body, Guard guard, int depth) {
    if (null(body)) return;
    const ScopeId saved = scope_;
    open(ScopeKind::Branch);
    m_.scopes[scope_].guard = guard;
    visit(body, depth + 1);
    scope_ = saved;
  }

  // ---- functions ----------------------------------------------------------------------

  // The declared name of a function: `forward` for `Net::forward`, `train` for `train<T>`.
  std::string function_name(TSNode declarator, int depth = 0) const {
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

  void note_parameters(const std::string& function, TSNode declarator) {
    for (int depth = 0; !null(declarator) && !is(declarator, "function_declarator") && depth < 20;
         ++depth)
      declarator = field(declarator, "declarator");
    TSNode list = field(declarator, "parameters");
    for (uint32_t i = 0, c = named_count(list); i < c; ++i) {
      std::string name = declared_name(field(named(list, i), "declarator"));
      if (!name.empty()) parameters_[name].emplace_back(function, i);
    }
  }

  void on_function(TSNode n, int depth) {
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
  bool is_module_method(TSNode function) const {
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

  // ---- loops and branches ---------------------------------------------------------------

  // A loop spanning `whole` with `header`, and its scope, opened: the condition and header run
  // per iteration too, so they belong to it.
  LoopState open_loop(Span whole, Span header) {
    Loop loop;
    loop.span = whole;
    loop.header = header;
    loop.function = function_;
    loop.never_step = in_module_method_;
    const int32_t index = static_cast<int32_t>(m_.loops.size());
    m_.loops.push_back(loop);
    m_.loops[index].scope = open(ScopeKind::Loop, index);
    LoopState state;
    state.loop = index;
    if (!loop_stack_.empty()) state.cpu_batch = loop_stack_.back().cpu_batch;
    return state;
  }

  void on_loop(TSNode n, int depth) {
    TSNode body = field(n, "body");
    uint32_t header_end = null(body) ? ts_node_end_byte(n) : ts_node_start_byte(body);
    if (is(n, "do_statement")) header_end = ts_node_start_byte(n) + 2;
    while (header_end > ts_node_start_byte(n) &&
           std::isspace(static_cast<unsigned char>(src_[header_end - 1])))
      --header_end;
    const ScopeId saved = scope_;
    LoopState state = open_loop(span(n), {ts_node_start_byte(n), header_end});
    const int32_t index = state.loop;
    if (is(n, "for_range_loop")) {
      TSNode right = field(n, "right");
      visit(right, depth + 1);
      note_iterable(index, right, field(n, "declarator"), state);
    } else if (is(n, "for_statement")) {
      TSNode init = field(n, "initializer");
      if (is(init, "declaration")) {
        std::vector<std::string> declared;
        for (uint32_t i = 0, c = named_count(init); i < c; ++i) {
          std::string name = declared_name(named(init, i));
          if (!name.empty()) declared.push_back(name);
        }
        counter_names_.insert(declared.begin(), declared.end());
        if (declared.size() == 1 && is_integer_type(field(init, "type")))
          m_.loops[index].counter = declared.front();
      }
      visit(init, depth + 1);
      visit(field(n, "condition"), depth + 1);
      visit(field(n, "update"), depth + 1);
    } else {
      visit(field(n, "condition"), depth + 1);
    }
    loop_stack_.push_back(std::move(state));
    // A body that always leaves the loop (`... break;` last) runs once: no step loop.
    uint32_t statements = is(body, "compound_statement") ? named_count(body) : 0;
    while (statements > 0 && is(named(body, statements - 1), "comment")) --statements;
    if (statements > 0) {
      TSNode last = named(body, statements - 1);
      if (is(last, "break_statement") || is(last, "return_statement") ||
          (is(last, "expression_statement") && named_count(last) > 0 &&
           is(named(last, 0), "throw_expression"))) {
        m_.loops[index].never_step = true;
      }
    }
    for (uint32_t i = 0; i < statements; ++i) {
      if (is(named(body, i), "comment")) continue;  // `{  // a note` on the header's line
      note_body_line(m_.loops[index], named(body, i));
      break;
    }
    if (!null(body)) visit(body, depth + 1);
    loop_stack_.pop_back();
    scope_ = saved;
  }

  // Loop::body_line and body_indent, when `first` (the body's first statement) begins its line.
  void note_body_line(Loop& loop, TSNode first) const {
    const uint32_t begin = ts_node_start_byte(first);
    const size_t newline = src_.rfind('\n', begin == 0 ? 0 : begin - 1);
    if (begin == 0 || newline == std::string_view::npos) return;
    const std::string_view indent = src_.substr(newline + 1, begin - newline - 1);
    if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
    loop.body_line = static_cast<uint32_t>(newline + 1);
    loop.body_indent = std::string(indent);
  }

  // int, unsigned long, size_t, std::int64_t...: what `% N` takes (not `auto`, an iterator).
  bool is_integer_type(TSNode type) const {
    const std::string spelled = compact(type);
    if (is(type, "sized_type_specifier")) return spelled.find("double") == std::string::npos;
    static const std::set<std::string, std::less<>> integers = {
        "int",      "long",          "short",     "unsigned",       "size_t",   "std::size_t",
        "int64_t",  "std::int64_t",  "int32_t",   "std::int32_t",   "uint64_t", "std::uint64_t",
        "uint32_t", "std::uint32_t", "ptrdiff_t", "std::ptrdiff_t", "int8_t",   "int16_t",
        "uint8_t",  "uint16_t"};
    return integers.count(spelled) > 0;
  }

  // `for (auto& batch : *loader)`: a loader the file builds, or a name that says it is one
  // (a loader passed in as a parameter, as LibTorch's examples do).
  void note_iterable(int32_t loop, TSNode right, TSNode declarator, LoopState& state) {
    std::vector<std::string> bound;
    binding_names(declarator, bound);
    note_iterated(loop, root_name(right), std::move(bound), state);
  }

  void note_iterated(int32_t loop, const std::string& name, std::vector<std::string> bound,
                     LoopState& state) {
    if (name.empty()) return;
    auto it = loader_names_.find(name);
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (it == loader_names_.end() && lower.find("loader") == std::string::npos) return;
    m_.loops[loop].iterates_loader = true;
    if (it != loader_names_.end()) {
      m_.loops[loop].loaders.push_back(it->second);
      m_.loaders[it->second].iterated = true;
    }
    for (std::string& b : bound) state.cpu_batch.insert(std::move(b));
  }

  // `FOR_EACH_BATCH(batch, loader) { ... }` reads to tree-sitter as a function definition
  // (C++ has no nested ones), `REPEAT(10) { ... }` as a call and a block; Clang, when it ran,
  // says whether a macro wrote a loop around the block.
  const MacroLoop* macro_loop(TSNode block) const {
    if (resolution_ == nullptr || !is(block, "compound_statement")) return nullptr;
    auto it = resolution_->macro_loops.find(ts_node_start_byte(block));
    return it == resolution_->macro_loops.end() || !it->second.block ? nullptr : &it->second;
  }

  // `REPEAT(10) step();`: the invocation was blanked out before parsing (build_model), so the
  // body reads as the statement it is, and Clang says a macro loops over it. The nodes inside
  // that start where it does are not that body again.
  const MacroLoop* macro_loop_statement(TSNode n) const {
    if (resolution_ == nullptr || !ts_node_is_named(n) || ts_node_start_byte(n) == open_statement_)
      return nullptr;
    auto it = resolution_->macro_loops.find(ts_node_start_byte(n));
    return it == resolution_->macro_loops.end() || it->second.block ? nullptr : &it->second;
  }

  void on_macro_loop(TSNode body, const MacroLoop& info, int depth) {
    const ScopeId saved = scope_;
    LoopState state = open_loop({info.header_begin, ts_node_end_byte(body)},
                                {info.header_begin, info.header_end});
    counter_names_.insert(info.counters.begin(), info.counters.end());
    note_iterated(state.loop, info.iterated, info.bound, state);
    loop_stack_.push_back(std::move(state));
    if (info.block) {
      visit_block(body, depth + 1);
    } else {
      const uint32_t saved_statement = open_statement_;
      open_statement_ = ts_node_start_byte(body);
      visit(body, depth + 1);
      open_statement_ = saved_statement;
    }
    loop_stack_.pop_back();
    scope_ = saved;
  }

  void binding_names(TSNode n, std::vector<std::string>& out, int depth = 0) const {
    if (null(n) || depth > 20) return;
    if (is(n, "identifier")) {
      out.emplace_back(text(n));
      return;
    }
    for (uint32_t i = 0, c = named_count(n); i < c; ++i) binding_names(named(n, i), out, depth + 1);
  }

  // The value of a condition on a local constant (`bool cpu_only = true;` then
  // `if (!cpu_only)`), when it is one.
  std::optional<bool> constant_condition(TSNode condition) const {
    condition = unparen(condition);
    if (is(condition, "condition_clause") && named_count(condition) == 1)
      condition = unparen(named(condition, 0));
    if (is(condition, "unary_expression") && text(field(condition, "operator")) == "!") {
      const std::optional<bool> inner = constant_condition(field(condition, "argument"));
      return inner ? std::optional<bool>(!*inner) : std::nullopt;
    }
    const std::optional<int64_t> value = integer(condition);
    return value ? std::optional<bool>(*value != 0) : std::nullopt;
  }

  void on_if(TSNode n, int depth) {
    TSNode condition = field(n, "condition");
    visit(condition, depth + 1);
    // A branch a local constant rules out never runs: its moves to CUDA do not make a CPU
    // program a CUDA one.
    if (const std::optional<bool> known = constant_condition(condition)) {
      TSNode taken = *known ? field(n, "consequence") : field(n, "alternative");
      if (!null(taken)) with_branch(taken, Guard::Data, depth);
      return;
    }
    const ScopeId saved = scope_;
    open(ScopeKind::Branch);
    const ScopeId branch = scope_;
    pending_guards_.emplace_back(branch, condition);
    visit(field(n, "consequence"), depth + 1);
    scope_ = saved;
    TSNode alternative = field(n, "alternative");
    if (!null(alternative)) with_branch(alternative, Guard::Data, depth);
  }

  // Decided at the end, once every counter (`++step` may come after the `if`) is known.
  Guard classify_guard(TSNode condition) const {
    std::string_view s = text(condition);
    if (s.find("rank") != std::string_view::npos || s.find("is_main") != std::string_view::npos ||
        s.find("master") != std::string_view::npos) {
      return s.find('%') != std::string_view::npos ? Guard::Interval : Guard::Rank;
    }
    if (s.find('%') != std::string_view::npos) return Guard::Interval;
    bool compares = s.find("==") != std::string_view::npos ||
                    s.find('<') != std::string_view::npos || s.find('>') != std::string_view::npos;
    return compares && mentions_counter(condition, 0) ? Guard::Interval : Guard::Data;
  }

  bool mentions_counter(TSNode n, int depth) const {
    if (null(n) || depth > 50) return false;
    if (is(n, "identifier")) return counter_names_.count(std::string(text(n))) > 0;
    if (is(n, "call_expression")) return false;  // `loss.item<float>() < 0.1` is data
    for (uint32_t i = 0, c = named_count(n); i < c; ++i)
      if (mentions_counter(named(n, i), depth + 1)) return true;
    return false;
  }

  void note_counter(TSNode n) {
    std::string name = root_name(n);
    if (!name.empty() && !loop_stack_.empty()) counter_names_.insert(name);
  }

  // ---- declarations and assignments --------------------------------------------------

  std::string declared_name(TSNode declarator) const {
    if (is(declarator, "init_declarator")) declarator = field(declarator, "declarator");
    if (is(declarator, "function_declarator")) declarator = field(declarator, "declarator");
    if (is(declarator, "reference_declarator") || is(declarator, "pointer_declarator")) {
      if (named_count(declarator) > 0) declarator = named(declarator, named_count(declarator) - 1);
    }
    return is(declarator, "identifier") ? std::string(text(declarator)) : std::string();
  }

  void on_declaration(TSNode n, int depth) {
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
  void note_parts(const std::string& holder, TSNode value, int depth) {
    if (null(value) || depth > 8) return;
    if (is(value, "call_expression")) {
      note_part_arguments(holder, field(value, "arguments"), depth + 1);
      note_parts(holder, field(value, "function"), depth + 1);
      return;
    }
    for (uint32_t i = 0, c = named_count(value); i < c; ++i)
      note_parts(holder, named(value, i), depth + 1);
  }

  void note_part_arguments(const std::string& holder, TSNode args, int depth) {
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
  void on_binding(TSNode decl, const std::string& name, const std::string& type, TSNode value,
                  TSNode args) {
    std::string_view init =
        null(value) ? (null(args) ? std::string_view{} : text(args)) : text(value);
    if (last_component(type) == "Device" ||
        (type == "auto" && init.find("Device(") != std::string_view::npos)) {
      bool cuda = mentions_cuda(init), cpu = mentions_cpu(init);
      device_names_[name] = cuda && !cpu   ? DeviceTarget::Cuda
                            : cpu && !cuda ? DeviceTarget::Cpu
                                           : DeviceTarget::MaybeCuda;
    }
    if (type.find("optim::") != std::string::npos ||
        init.find("optim::") != std::string_view::npos) {
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
  void note_parameters_owner(std::string_view init) {
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
  bool is_graph_expr(TSNode n, int depth = 0) const {
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

  bool reads_cpu_batch(TSNode value) const {
    if (loop_stack_.empty()) return false;
    value = unparen(value);
    if (!is(value, "identifier") && !is(value, "field_expression")) return false;
    return loop_stack_.back().cpu_batch.count(root_name(value)) > 0;
  }

  // Does a call in a loop take data the loop makes? Not when every argument is a name the loop
  // neither declares nor assigns (`model->forward(input)` timed on one input): such a loop
  // calls the model but runs no steps over data.
  bool takes_loop_data(TSNode args) const {
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

  bool copies_to_host(std::string_view expr) const {
    return expr.find(".cpu()") != std::string_view::npos ||
           expr.find("kCPU") != std::string_view::npos;
  }

  bool on_host(TSNode receiver) const {
    return copies_to_host(text(receiver)) || host_names_.count(root_name(receiver)) > 0;
  }

  void on_assignment(TSNode n, int depth) {
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

  void note_accumulation(TSNode n, const std::string& target, TSNode value) {
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

  // ---- expressions ---------------------------------------------------------------------

  // OutputCall::indent of the output just added, when it is the whole of a statement that
  // begins its line (a fix can put it under a guard).
  void note_output_statement(TSNode n) {
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
  void on_binary(TSNode n, int depth) {
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

  void on_call(TSNode n, int depth) {
    TSNode function = field(n, "function");
    TSNode args = field(n, "arguments");
    const std::string_view method = method_name(function);
    const uint32_t argc = null(args) ? 0 : named_count(args);
    const std::string* resolved_name = resolved(n);
    if (!method.empty()) {
      // One of the file's methods (`this->sync()`, `logger.write(loss)`) is a helper like a
      // free function, where Clang says which definition it is; by its qualified name, so no
      // match by name applies to it. A model's forward() is model code, not a helper.
      if (resolved_name != nullptr && method != "forward" &&
          resolution_->definitions_of(ts_node_start_byte(n), ts_node_end_byte(n))) {
        add_pending_call(*resolved_name, n, args, argc);
      }
      on_method_call(n, function, method, args, depth, resolved_name);
      return;
    }
    // The spelt name finds the file's own functions and models; what a LibTorch API call is,
    // Clang says when it ran (through `using`, aliases and macros), else the spelling.
    const std::string spelled = callee_name(function);
    const std::string callee = resolved_name ? *resolved_name : spelled;
    bool output = is_printf(callee);
    if (output) {
      m_.outputs.push_back({OutputKind::Console, span(n), scope_, spelled, {}, {}});
      note_output_statement(n);
    }
    if (is_synchronize(callee)) add_sync(n, SyncKind::Synchronize, callee + "()");
    if (is_empty_cache(callee)) add_sync(n, SyncKind::EmptyCache, callee + "()");
    if (is_dynamic_shape(callee)) m_.dynamic_shapes.push_back({span(n), scope_, callee + "()"});
    if (is_module_class(callee)) add_module(n, callee, args);
    if (is_make_data_loader(callee)) on_make_data_loader(n, args);
    if (is_loader_options(callee)) note_options_chain(n);
    if (last_component(callee) == "set_enabled" &&
        callee.find("AnomalyMode") != std::string::npos && compact(args) == "(true)") {
      add_api(ApiKind::DetectAnomaly, n, compact(n));
    }
    if ((callee == "setenv" || callee == "::setenv") &&
        contains(args, "\"CUDA_LAUNCH_BLOCKING\"") && argc >= 2 &&
        text(named(args, 1)) == "\"1\"") {
      add_api(ApiKind::LaunchBlocking, n, compact(n));
    }
    if (!spelled.empty()) add_pending_call(spelled, n, args, argc);
    if (argc > 0 &&
        (model_names_.count(spelled) || loss_names_.count(spelled) || is_loss_function(callee)))
      note_model_inputs(args, spelled);
    const bool saved = in_output_;
    in_output_ |= output;
    visit_children(n, depth);
    in_output_ = saved;
  }

  void on_method_call(TSNode n, TSNode function, std::string_view method, TSNode args, int depth,
                      const std::string* resolved_name) {
    TSNode receiver = field(function, "argument");
    const std::string recv = root_name(receiver);
    const uint32_t argc = null(args) ? 0 : named_count(args);
    // With Clang's answer, tensor methods count only on tensors: `queue.item()` is not a sync.
    std::string_view klass;
    if (resolved_name) {
      const size_t at = resolved_name->rfind("::");
      klass = std::string_view(*resolved_name).substr(0, at == std::string::npos ? 0 : at);
    }
    const bool tensor = !resolved_name || klass == "at::Tensor" || klass == "at::TensorBase";
    const bool stream = !resolved_name || klass.find("Stream") != std::string_view::npos ||
                        klass.find("Event") != std::string_view::npos;
    if (!tensor && method != "synchronize") {
      on_module_method(n, function, method, args, depth);
      return;
    }
    if (method == "synchronize" && !stream) {
      on_module_method(n, function, method, args, depth);
      return;
    }
    // A tensor already copied to the host (`t.cpu().item<float>()`, `s = x.to(torch::kCPU)`
    // then `s.masked_select(m)`) syncs nothing more.
    const bool host = on_host(receiver);
    if (method == "item" && !host) {
      std::string spelling = compact(field(function, "field"));
      if (spelling.starts_with("template")) spelling.erase(0, 8);
      add_sync(n, SyncKind::Item, "." + spelling + "()");
    }
    if (method == "cpu" && argc == 0) add_sync(n, SyncKind::HostCopy, ".cpu()");
    if (method == "synchronize" && argc == 0) add_sync(n, SyncKind::Synchronize, ".synchronize()");
    if (method == "backward") m_.events.push_back({StepEventKind::Backward, span(n), scope_, ""});
    if (!host && (method == "nonzero" || method == "masked_select" || method == "unique"))
      m_.dynamic_shapes.push_back({span(n), scope_, "." + std::string(method) + "()"});
    if (method == "index" && contains(args, "mask"))
      m_.dynamic_shapes.push_back({span(n), scope_, ".index()"});
    if (method == "to" && argc >= 1) {
      if (device_of(named(args, 0)) == DeviceTarget::Cpu)
        add_sync(n, SyncKind::HostCopy, ".to(" + compact(named(args, 0)) + ")");
    }
    on_module_method(n, function, method, args, depth);
  }

  // Methods that do not need a tensor receiver: modules, optimizers, loader options, moves.
  void on_module_method(TSNode n, TSNode function, std::string_view method, TSNode args,
                        int depth) {
    TSNode receiver = field(function, "argument");
    const std::string recv = root_name(receiver);
    const uint32_t argc = null(args) ? 0 : named_count(args);
    if (method == "step" &&
        (optimizer_names_.count(recv) || recv.find("optim") != std::string::npos))
      m_.events.push_back({StepEventKind::OptimizerStep, span(n), scope_, ""});
    if (method == "forward" && libtorch_ && !recv.empty() && recv != "this" && !in_forward_) {
      model_names_.insert(recv);
      m_.events.push_back({StepEventKind::ModelCall, span(n), scope_, recv, takes_loop_data(args)});
      if (argc > 0) note_model_inputs(args, recv);
    }
    // A module is reached through `->` (a ModuleHolder) or `.` (a plain nn::Module subclass).
    if ((method == "train" || method == "eval" || method == "parameters") && libtorch_ &&
        !recv.empty()) {
      model_names_.insert(recv);
      trained_names_.insert(recv);
    }
    if (method == "setAllowTF32CuBLAS" && argc == 1) {
      std::string_view v = text(named(args, 0));
      if (v == "false") add_api(ApiKind::Tf32Disabled, n, compact(n));
      if (v == "true") add_api(ApiKind::Tf32Enabled, n, compact(n));
    }
    if ((method == "workers" || method == "batch_size") && argc == 1) {
      if (auto it = loader_names_.find(recv);
          it != loader_names_.end() && is(receiver, "identifier"))
        set_option(m_.loaders[it->second], method, named(args, 0));
    }
    if (method == "cuda" && argc == 0)
      on_move(n, function, DeviceTarget::Cuda, "torch::kCUDA", false);
    if (method == "to" && argc >= 1) {
      if (auto target = device_of(named(args, 0))) {
        bool non_blocking = argc >= 2 && text(named(args, 1)) == "true";
        on_move(n, function, *target, std::string(text(named(args, 0))), non_blocking);
      }
    }
    visit(receiver, depth + 1);
    const bool saved_move = in_move_;
    in_move_ = saved_move || method == "to";
    if (!null(args)) visit(args, depth + 1);
    in_move_ = saved_move;
  }

  void on_move(TSNode n, TSNode function, DeviceTarget target, std::string device,
               bool non_blocking) {
    TSNode receiver = unparen(field(function, "argument"));
    m_.moves.push_back({span(n), scope_, target, root_name(receiver), non_blocking});
    if (target == DeviceTarget::Cpu || !is(receiver, "call_expression")) return;
    std::string factory = callee_name(field(receiver, "function"));
    std::string_view fill = fill_factory(factory);
    TSNode fargs = field(receiver, "arguments");
    // With more than the sizes, an options argument is there already: the fix would clash.
    if (fill.empty() || null(fargs) || named_count(fargs) != 1) return;
    FactoryMove fm;
    fm.span = span(n);
    fm.factory = span(receiver);
    fm.factory_args = argument_list(fargs);
    fm.move = {ts_node_end_byte(receiver), ts_node_end_byte(n)};
    fm.factory_name = factory;
    fm.device = std::move(device);
    fm.scope = scope_;
    m_.factory_moves.push_back(std::move(fm));
  }

  void note_model_inputs(TSNode args, const std::string& model) {
    if (loop_stack_.empty()) return;
    for (uint32_t i = 0, c = named_count(args); i < c; ++i) {
      TSNode a = unparen(named(args, i));
      if (!reads_cpu_batch(a)) continue;
      UnmovedInput input;
      input.span = span(a);
      input.scope = scope_;
      input.loop = current_loop();
      input.name = std::string(text(a));
      input.model = model;
      pending_inputs_.push_back({model, std::move(input)});
    }
  }

  void add_sync(TSNode n, SyncKind kind, std::string spelling) {
    m_.syncs.push_back({kind, sync_span(n), scope_, std::move(spelling), in_output_});
  }

  // `loss.item<float>()` as a whole, but only `.item<float>()` of a longer chain
  // (`torch::nll_loss(...)\n    .item<float>()`), so the finding points at the sync.
  Span sync_span(TSNode call) const {
    TSNode function = field(call, "function");
    if (!is(function, "field_expression")) return span(call);
    TSNode receiver = field(function, "argument");
    if (!root_name(receiver).empty() && text(receiver).find('(') == std::string_view::npos)
      return span(call);
    TSNode op = field(function, "operator");
    return null(op) ? span(call) : Span{ts_node_start_byte(op), ts_node_end_byte(call)};
  }

  void add_api(ApiKind kind, TSNode n, std::string spelling) {
    ApiUse use{kind, span(n), scope_, kNoScope, std::move(spelling), {}, {}, {}, {}, {}};
    use.callee = span(field(n, "function"));
    use.written = compact(field(n, "function"));
    use.arguments = argument_list(field(n, "arguments"));
    m_.api_uses.push_back(std::move(use));
  }

  void add_module(TSNode n, const std::string& klass, TSNode args) {
    ModuleConstruction mc;
    mc.span = span(n);
    mc.scope = scope_;
    mc.spelling = klass;
    mc.in_forward = in_forward_;
    mc.has_parameters = has_parameters(klass);
    if (!null(args)) {
      for (uint32_t i = 0, c = named_count(args); i < c; ++i) {
        TSNode a = named(args, i);
        if (auto dim = integer(a); dim && is(a, "number_literal"))
          mc.dims.push_back({*dim, span(a), static_cast<int32_t>(i), {}});
      }
    }
    m_.modules.push_back(std::move(mc));
  }

  // ---- loaders -------------------------------------------------------------------------

  std::unordered_map<uint32_t, int32_t> loader_of_call_;  // call start byte -> loader

  int32_t add_loader(TSNode call, TSNode callee, TSNode args) {
    Loader l;
    l.call = span(call);
    l.spelling = compact(callee);
    l.arguments = argument_list(args);
    l.scope = scope_;
    // LibTorch's loader has no pinning option and keeps its worker threads for its lifetime,
    // so the Python-only settings stay unknown, and unknown values are silent.
    l.pin_memory.state = Value::State::Unknown;
    l.persistent_workers.state = Value::State::Unknown;
    // `DataLoaderOptions(64)`: the constructor's argument is the batch size.
    if (!null(args) && named_count(args) == 1) set_option(l, "batch_size", named(args, 0));
    m_.loaders.push_back(std::move(l));
    return static_cast<int32_t>(m_.loaders.size() - 1);
  }

  // A decimal integer literal, or a name bound to one (`const int64_t kBatchSize = 64;`).
  std::optional<int64_t> integer(TSNode v) const {
    v = unparen(v);
    if (is(v, "identifier")) {
      auto it = constants_.find(std::string(text(v)));
      return it == constants_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    if (is(v, "true") || is(v, "false")) return is(v, "true") ? 1 : 0;
    std::string_view s = text(v);
    if (!is(v, "number_literal") || s.empty() || s.size() > 18 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    return std::stoll(std::string(s));
  }

  Value value_of(TSNode v) const {
    Value out;
    out.span = span(v);
    out.state = Value::State::Unknown;
    if (auto n = integer(v)) {
      out.state = Value::State::Known;
      out.number = *n;
    }
    return out;
  }

  void set_option(Loader& l, std::string_view option, TSNode v) {
    if (option == "workers") l.num_workers = value_of(v);
    if (option == "batch_size") l.batch_size = value_of(v);
  }

  // `torch::data::DataLoaderOptions().batch_size(64).workers(2)`: `outer` grows over the chain
  // and becomes the loader's span, as RULES.md points GL201/GL206 at the options expression.
  int32_t note_options_chain(TSNode constructor) {
    if (auto it = loader_of_call_.find(ts_node_start_byte(constructor));
        it != loader_of_call_.end())
      return it->second;
    TSNode outer = constructor;
    std::vector<std::pair<std::string, TSNode>> options;
    for (TSNode p = ts_node_parent(outer); is(p, "field_expression"); p = ts_node_parent(outer)) {
      TSNode call = ts_node_parent(p);
      if (!is(call, "call_expression")) break;
      TSNode cargs = field(call, "arguments");
      std::string option(method_name(p));
      if (!null(cargs) && named_count(cargs) == 1) options.emplace_back(option, named(cargs, 0));
      outer = call;
    }
    int32_t loader =
        add_loader(constructor, field(constructor, "function"), field(constructor, "arguments"));
    Loader& l = m_.loaders[loader];
    l.call = span(outer);
    for (auto& [option, value] : options) set_option(l, option, value);
    loader_of_call_[ts_node_start_byte(outer)] = loader;
    loader_of_call_[ts_node_start_byte(constructor)] = loader;
    return loader;
  }

  // `make_data_loader(ds, options)`, `make_data_loader(ds, 64)`, `make_data_loader(ds)`.
  void on_make_data_loader(TSNode n, TSNode args) {
    const uint32_t argc = null(args) ? 0 : named_count(args);
    TSNode options = argc >= 2 ? unparen(named(args, argc - 1)) : TSNode{};
    int32_t loader = -1;
    if (!null(options) && text(options).find("DataLoaderOptions") != std::string_view::npos) {
      TSNode constructor = options;
      while (is(constructor, "call_expression") &&
             is(field(constructor, "function"), "field_expression"))
        constructor = field(field(constructor, "function"), "argument");
      if (is(constructor, "call_expression")) loader = note_options_chain(constructor);
    } else if (is(options, "identifier") && loader_names_.count(std::string(text(options)))) {
      loader = loader_names_[std::string(text(options))];
    } else {
      loader = add_loader(n, field(n, "function"), args);
      Loader& l = m_.loaders[loader];
      l.batch_size = {};
      if (integer(options)) {
        set_option(l, "batch_size", options);
      } else if (is(options, "identifier") &&
                 (text(options).find("batch") != std::string_view::npos ||
                  text(options).find("size") != std::string_view::npos)) {
        // `make_data_loader(ds, batch_size)`: the size_t overload, which has no workers.
        l.batch_size.state = Value::State::Unknown;
      } else if (!null(options)) {
        l.splat_unknown = true;  // options built elsewhere: nothing is known about them
        l.batch_size.state = Value::State::Unknown;
        l.num_workers.state = Value::State::Unknown;
      }
    }
    // Options text that is no options chain (broken code) makes no loader.
    if (loader >= 0) loader_of_call_[ts_node_start_byte(n)] = loader;
  }

  // ---- the end -------------------------------------------------------------------------

  void finish() {
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
  std::vector<int32_t> functions_called(const PendingCall& call) const {
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
  int32_t function_named_at(uint32_t offset) const {
    for (size_t i = 0; i < m_.functions.size(); ++i) {
      const Span& name = m_.functions[i].name_span;
      if (name.begin <= offset && offset < name.end) return static_cast<int32_t>(i);
    }
    return -1;
  }

  // `void fit(torch::nn::Linear& model, ...)` called as `fit(fc, ...)` with `fc` handed to an
  // optimizer: `model` is that model too, and calling it is a step event.
  void note_models_passed_in() {
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
  bool moved_model(const std::string& name, const std::unordered_set<std::string>& moved,
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
};

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
