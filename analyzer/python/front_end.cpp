#include "analyzer/python/front_end.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/core/name_table.h"
#include "analyzer/flat_tree.h"
#include "analyzer/python/names.h"
#include "analyzer/syntax_tree.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint::python {
namespace {

// Deeper trees than this are not walked further: the rest of such an expression is reported
// as not analysed (GL000) instead of risking the thread's stack.
constexpr int kMaxDepth = 2000;
// Calls nest in bigger frames than other nodes (on_call holds strings and argument lists), so
// they get their own, lower limit: 200 is CPython's own limit for nested parentheses.
constexpr int kMaxCallDepth = 200;
// Expression judgements (tensor-ness, origins) look this deep and no deeper.
constexpr int kMaxExprDepth = 48;

struct Symbols {
  TSSymbol module, function_definition, class_definition, decorated_definition, decorator;
  TSSymbol for_statement, while_statement, if_statement, elif_clause, else_clause;
  TSSymbol try_statement, except_clause, except_group_clause, finally_clause;
  TSSymbol assert_statement, with_statement, with_clause, with_item, call, attribute, identifier,
      keyword_argument;
  TSSymbol assignment, augmented_assignment, return_statement, comment, argument_list;
  TSSymbol string, integer, true_, false_, subscript, binary_operator, comparison_operator;
  TSSymbol boolean_operator, not_operator, unary_operator, parenthesized_expression;
  TSSymbol dictionary, pair, dictionary_splat, list_splat, conditional_expression, lambda;
  TSSymbol pattern_list, tuple_pattern, expression_list, tuple, list_pattern, list;
  TSSymbol generator_expression, typed_parameter, default_parameter, typed_default_parameter;
  TSSymbol block, concatenated_string, none, import_statement, import_from_statement;
  TSSymbol aliased_import, dotted_name, relative_import;
  TSFieldId f_body, f_name, f_superclasses, f_left, f_right, f_condition, f_consequence;
  TSFieldId f_alternative, f_value, f_function, f_arguments, f_object, f_attribute, f_parameters;
  TSFieldId f_definition, f_operator, f_argument, f_key, f_alias, f_module_name, f_subscript;

  explicit Symbols(const TSLanguage* lang) {
    auto sym = [&](const char* name, bool named = true) {
      return ts_language_symbol_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)),
                                         named);
    };
    auto field = [&](const char* name) {
      return ts_language_field_id_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)));
    };
    module = sym("module");
    function_definition = sym("function_definition");
    class_definition = sym("class_definition");
    decorated_definition = sym("decorated_definition");
    decorator = sym("decorator");
    for_statement = sym("for_statement");
    while_statement = sym("while_statement");
    if_statement = sym("if_statement");
    elif_clause = sym("elif_clause");
    else_clause = sym("else_clause");
    try_statement = sym("try_statement");
    except_clause = sym("except_clause");
    except_group_clause = sym("except_group_clause");
    finally_clause = sym("finally_clause");
    with_statement = sym("with_statement");
    assert_statement = sym("assert_statement");
    with_clause = sym("with_clause");
    with_item = sym("with_item");
    call = sym("call");
    attribute = sym("attribute");
    identifier = sym("identifier");
    keyword_argument = sym("keyword_argument");
    assignment = sym("assignment");
    augmented_assignment = sym("augmented_assignment");
    return_statement = sym("return_statement");
    comment = sym("comment");
    argument_list = sym("argument_list");
    string = sym("string");
    integer = sym("integer");
    true_ = sym("true");
    false_ = sym("false");
    none = sym("none");
    subscript = sym("subscript");
    binary_operator = sym("binary_operator");
    comparison_operator = sym("comparison_operator");
    boolean_operator = sym("boolean_operator");
    not_operator = sym("not_operator");
    unary_operator = sym("unary_operator");
    parenthesized_expression = sym("parenthesized_expression");
    dictionary = sym("dictionary");
    pair = sym("pair");
    dictionary_splat = sym("dictionary_splat");
    list_splat = sym("list_splat");
    conditional_expression = sym("conditional_expression");
    lambda = sym("lambda");
    pattern_list = sym("pattern_list");
    tuple_pattern = sym("tuple_pattern");
    expression_list = sym("expression_list");
    tuple = sym("tuple");
    list_pattern = sym("list_pattern");
    list = sym("list");
    generator_expression = sym("generator_expression");
    typed_parameter = sym("typed_parameter");
    default_parameter = sym("default_parameter");
    typed_default_parameter = sym("typed_default_parameter");
    block = sym("block");
    concatenated_string = sym("concatenated_string");
    import_statement = sym("import_statement");
    import_from_statement = sym("import_from_statement");
    aliased_import = sym("aliased_import");
    dotted_name = sym("dotted_name");
    relative_import = sym("relative_import");
    f_body = field("body");
    f_name = field("name");
    f_superclasses = field("superclasses");
    f_left = field("left");
    f_right = field("right");
    f_condition = field("condition");
    f_consequence = field("consequence");
    f_alternative = field("alternative");
    f_value = field("value");
    f_function = field("function");
    f_arguments = field("arguments");
    f_object = field("object");
    f_attribute = field("attribute");
    f_parameters = field("parameters");
    f_definition = field("definition");
    f_operator = field("operator");
    f_argument = field("argument");
    f_subscript = field("subscript");
    f_key = field("key");
    f_alias = field("alias");
    f_module_name = field("module_name");
  }
};

const Symbols& symbols() {
  static const Symbols s(tree_sitter_python());
  return s;
}

// Where a name's value came from, as far as the front end cares.
struct DeviceName {
  DeviceTarget target = DeviceTarget::MaybeCuda;
};

struct LoopState {
  int32_t loop = -1;
  int32_t function = -1;
  NameSet bound;      // names bound in the loop body so far
  NameSet cpu_batch;  // names holding loader batches not yet moved
  // Calls whose arguments may be bound later in the body, as loop-carried values
  // (`out, h = decoder(x, h)` ... `x = out.argmax()`): (index into pending_calls_, names read).
  std::vector<std::pair<size_t, std::vector<std::string_view>>> carried_calls;
};

// Names are views into the source, which outlives the Builder.
struct PendingCall {
  std::string_view callee;  // `helper` or `self.method`
  std::string_view klass;   // the class the call sits in, for self.method
  Span span;
  ScopeId scope;
  bool loop_data;  // an argument is bound in the loop (or is a parameter of the helper)
};

struct PendingConvert {
  Node call;
  Node argument;
  ScopeId scope;
  bool inside_output;
};

// `engine.train(model, loaders)` with `loaders` from another imported call.
struct PendingFlow {
  std::string callee;
  int32_t position;
  std::string keyword;
  std::string source;
};

// `logger.update(...)` with `logger = MetricLogger(...)`: a method of a class, maybe imported.
struct PendingMethodCall {
  std::string klass;  // the constructor as called: `MetricLogger`, `utils.MetricLogger`
  std::string method;
  Span span;
  ScopeId scope;
};

struct PendingInput {
  std::string callee;
  UnmovedInput input;
};

struct ModelDtype {
  std::string name;
  bool reduced;
};

class Builder {
 public:
  Builder(std::string_view src, const Inbound& inbound)
      : src_(src), s_(symbols()), inbound_(inbound) {}

  StepModel build() {
    SyntaxTree tree = parse_tree(tree_sitter_python(), src_);
    if (!tree) {
      m_.parse_errors.push_back({{0, 0}, "the parser gave up on this file"});
      return std::move(m_);
    }
    const FlatTree flat(std::move(tree), tree_sitter_python());
    Node root = flat.root();
    scope_ = m_.add_scope(ScopeKind::Module, kNoScope);
    module_scope_ = scope_;
    if (root.has_error()) note_first_error(root);
    visit_children(root, 0);
    finish();
    return std::move(m_);
  }

 private:
  std::string_view src_;
  const Symbols& s_;
  StepModel m_;
  ScopeId scope_ = kNoScope;
  ScopeId module_scope_ = kNoScope;
  int32_t function_ = -1;
  std::string_view class_name_;  // into the source
  std::string class_bases_;
  bool in_forward_ = false;
  bool in_output_ = false;
  int call_depth_ = 0;
  std::vector<LoopState> loop_stack_;
  std::vector<NameSet> params_;  // per open function

  NameSet model_names_, loss_names_, optimizer_names_, tensor_names_, numpy_names_, counter_names_,
      autocast_names_, on_device_names_;
  NameSet trainer_classes_, sync_objects_;
  // Classes of this file that derive from a Module, and names bound to a module instance
  // (`self.head = nn.Linear(...)`, `self.net = TinySegNet()`): calling one yields a tensor.
  NameSet module_classes_, module_names_;
  NameMap<DeviceName> device_names_;
  NameMap<int32_t> loader_names_;       // name -> loader
  NameMap<int32_t> loader_iter_names_;  // it = iter(loader)
  NameMap<int32_t> loader_functions_;   // def f(): return DataLoader
  // def f(): return train, val
  NameMap<std::vector<int32_t>> tuple_loader_functions_;
  const Inbound& inbound_;
  NameMap<int64_t> constants_;  // NAME = literal at module level, Class.NAME in a class body
  NameMap<std::vector<std::pair<Node, bool>>> dicts_;  // kwargs dicts
  NameMap<size_t> import_by_local_;    // the last import binding each name: m_.imports index
  NameMap<int32_t> function_by_name_;  // `f` or `Class.f`
  std::vector<PendingCall> pending_calls_;
  std::vector<PendingCall> pending_dotted_calls_;  // `engine.step(...)`: maybe an imported module
  NameMap<std::string> call_results_;              // `x = f(...)`: x -> f
  std::vector<std::pair<std::string, int32_t>> iterated_call_results_;  // (f, loop)
  std::vector<PendingConvert> pending_converts_;
  std::vector<PendingInput> pending_inputs_;
  std::vector<ModelDtype> model_dtypes_;
  NameSet deprecated_amp_names_, grad_names_, compiled_names_;
  NameMap<Span> first_assignment_;
  std::vector<std::pair<Node, ScopeId>> pending_conditions_;
  std::vector<std::pair<Node, ScopeId>> pending_dynamic_,  // calls whose receiver must be a tensor
      pending_masks_;   // subscripts: boolean-mask indexing when the index is a mask
  NameSet mask_names_;  // `valid = labels != -100`
  std::string_view last_mask_;
  mutable std::vector<ImportedConstant> imported_constants_;  // found while resolving values
  NameSet tracker_runs_;                                      // `run = wandb.init(...)`
  std::vector<std::pair<Node, Accumulation>> pending_accumulations_;
  NameSet parameter_names_, passed_in_names_;
  std::vector<PendingFlow> pending_flows_;
  std::vector<PendingMethodCall> pending_method_calls_;
  // Names a `.backward()` reads (`loss` in `(loss / n).backward()`), with its function.
  struct Backward {
    std::vector<std::string_view> names;
    int32_t function;
    Span span;
    ScopeId scope;
  };
  std::vector<Backward> backwards_;
  mutable std::deque<std::string> interned_;  // names dotted_view had to build; stable addresses

  // ---- small helpers -------------------------------------------------------------------

  std::string_view text(Node n) const {
    uint32_t b = n.start(), e = n.end();
    return src_.substr(b, e - b);
  }
  static Span span(Node n) { return {n.start(), n.end()}; }
  static Node field(Node n, TSFieldId f) { return n.child_by_field(f); }
  static bool null(Node n) { return n.null(); }
  bool is(Node n, TSSymbol sym) const { return !null(n) && n.symbol() == sym; }

  template <class F>
  void for_each_child(Node n, F&& f, bool named_only = true) {
    for (Node child = n.first_child(); !child.null(); child = child.next_sibling()) {
      if (!named_only || child.named()) f(child);
    }
  }

  // An attribute chain of identifiers (`a.b.c`) as a view: into the source when the chain is
  // written as one piece, as it nearly always is; otherwise into interned_, which keeps it while
  // the Builder lives. Empty for anything else.
  std::string_view dotted_view(Node n) const {
    const size_t length = dotted_parts(n, 0, nullptr);
    if (length == 0) return {};
    // The parts lie in the text in order, so the same length means nothing lies between them.
    const std::string_view t = text(n);
    if (t.size() == length) return t;
    std::string out;
    dotted_parts(n, 0, &out);
    return interned_.emplace_back(std::move(out));
  }

  // `a.b.c` for attribute chains of identifiers; empty for anything else.
  std::string dotted(Node n) const { return std::string(dotted_view(n)); }

  // The length of `n` as a chain (its parts joined by dots), or 0 when it is none; its parts
  // are appended to `out` when one is given.
  size_t dotted_parts(Node n, int depth, std::string* out) const {
    if (null(n) || depth > kMaxExprDepth) return 0;
    if (is(n, s_.identifier)) {
      const std::string_view name = text(n);
      if (out) out->append(name);
      return name.size();
    }
    if (!is(n, s_.attribute)) return 0;
    Node attr = field(n, s_.f_attribute);
    if (null(attr)) return 0;
    const size_t object = dotted_parts(field(n, s_.f_object), depth + 1, out);
    if (object == 0) return 0;
    const std::string_view name = text(attr);
    if (out) {
      out->push_back('.');
      out->append(name);
    }
    return object + 1 + name.size();
  }

  // The name a call is made on: `model` in `model(x)`, `self.net` in `self.net(x)`.
  std::string_view callee_name(Node call) const { return dotted_view(field(call, s_.f_function)); }

  std::string_view method_of(Node call) const {
    Node fn = field(call, s_.f_function);
    if (!is(fn, s_.attribute)) return {};
    Node attr = field(fn, s_.f_attribute);
    return null(attr) ? std::string_view{} : text(attr);
  }

  Node receiver_of(Node call) const {
    Node fn = field(call, s_.f_function);
    return is(fn, s_.attribute) ? field(fn, s_.f_object) : Node{};
  }

  std::string string_value(Node n) const {
    if (!is(n, s_.string)) return {};
    std::string_view t = text(n);
    size_t q = t.find_first_of("\"'");
    if (q == std::string_view::npos) return {};
    char quote = t[q];
    size_t e = t.find_last_of(quote);
    if (e <= q) return {};
    std::string_view inner = t.substr(q + 1, e - q - 1);
    while (!inner.empty() && inner.front() == quote) inner.remove_prefix(1);
    while (!inner.empty() && inner.back() == quote) inner.remove_suffix(1);
    return std::string(inner);
  }

  Node unparen(Node n) const {
    for (int d = 0; is(n, s_.parenthesized_expression) && d < kMaxExprDepth; ++d) {
      n = n.named_child(0);
    }
    return n;
  }

  // Names bound by an assignment target or loop target, `self.x` included; views as
  // dotted_view gives them.
  void target_names(Node n, std::vector<std::string_view>& out, int depth = 0) {
    if (null(n) || depth > kMaxExprDepth) return;
    if (is(n, s_.identifier) || is(n, s_.attribute)) {
      const std::string_view name = dotted_view(n);
      if (!name.empty()) out.push_back(name);
      return;
    }
    if (is(n, s_.pattern_list) || is(n, s_.tuple_pattern) || is(n, s_.list_pattern) ||
        is(n, s_.expression_list) || is(n, s_.tuple) || is(n, s_.list) ||
        is(n, s_.parenthesized_expression) || is(n, s_.list_splat)) {
      for_each_child(n, [&](Node c) { target_names(c, out, depth + 1); });
    }
  }

  // Every identifier (and self.x) an expression reads, down to a bounded depth.
  // Views into the source (or into interned_, for the rare chain written with spaces), valid
  // while the Builder lives: no string is built per name read.
  void read_names(Node n, std::vector<std::string_view>& out, int depth = 0) {
    if (null(n) || depth > kMaxExprDepth || out.size() > 64) return;
    if (is(n, s_.identifier)) {
      out.push_back(text(n));
      return;
    }
    if (is(n, s_.attribute)) {
      std::string_view name = dotted_view(n);
      if (!name.empty()) out.push_back(name);
    }
    if (is(n, s_.keyword_argument)) {
      read_names(field(n, s_.f_value), out, depth + 1);
      return;
    }
    for_each_child(n, [&](Node c) { read_names(c, out, depth + 1); });
  }

  bool contains_text(Node n, std::string_view needle) const {
    return text(n).find(needle) != std::string_view::npos;
  }

  bool moves_to_device(Node n) const {
    std::string_view t = text(n);
    return t.find(".to(") != std::string_view::npos || t.find(".cuda(") != std::string_view::npos ||
           t.find("to_device") != std::string_view::npos ||
           t.find("device=") != std::string_view::npos;
  }

  // ---- the walk ------------------------------------------------------------------------

  void visit_children(Node n, int depth) {
    for_each_child(
        n, [&](Node c) { visit(c, depth + 1); }, /*named_only=*/false);
  }

  // Deeper than the walk goes: reported once (GL000), the inside is skipped.
  void note_too_deep(Node n) {
    static constexpr std::string_view kTooDeep = "expressions nested too deeply to analyse";
    for (const ParseError& e : m_.parse_errors) {
      if (e.message.starts_with(kTooDeep)) return;
    }
    m_.parse_errors.push_back(
        {span(n), std::string(kTooDeep) + "; their innermost part is skipped"});
  }

  void visit(Node n, int depth) {
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
    if (sym == s_.try_statement) return on_try(n, depth);
    if (sym == s_.with_statement) return on_with(n, depth);
    if (sym == s_.call) return on_call(n, depth);
    if (sym == s_.assignment) return on_assignment(n, depth);
    if (sym == s_.augmented_assignment) return on_augmented(n, depth);
    if (sym == s_.return_statement) return on_return(n, depth);
    if (sym == s_.import_statement || sym == s_.import_from_statement) return on_import(n);
    if (sym == s_.subscript) pending_masks_.emplace_back(n, scope_);
    // `assert loss > 0` reads the tensor's value on the host, as `if` does.
    if (sym == s_.assert_statement && n.named_child_count() > 0)
      pending_conditions_.emplace_back(n.named_child(0), scope_);
    visit_children(n, depth);
  }

  // The first syntax error in source order: descend into the first child that holds one.
  void note_first_error(Node n) {
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

  void on_import(Node n) {
    std::string module;
    if (is(n, s_.import_from_statement)) {
      Node m = field(n, s_.f_module_name);
      module = null(m) ? "" : std::string(text(m));
    }
    for (Node name = n.first_child(); !name.null(); name = name.next_sibling()) {
      if (name.field() != s_.f_name) continue;
      Node alias{};
      if (is(name, s_.aliased_import)) {
        alias = field(name, s_.f_alias);
        name = field(name, s_.f_name);
      }
      if (null(name)) continue;
      Import imp;
      imp.span = span(n);
      if (module.empty()) {
        imp.module = std::string(text(name));
        // `import a.b` binds `a`; `import a.b as c` binds `c` to a.b.
        imp.local =
            null(alias) ? imp.module.substr(0, imp.module.find('.')) : std::string(text(alias));
        if (null(alias)) imp.module = imp.local;
      } else {
        imp.module = module;
        imp.symbol = std::string(text(name));
        imp.local = null(alias) ? imp.symbol : std::string(text(alias));
      }
      if (module == "torch.cuda.amp" || module == "torch.cpu.amp")
        deprecated_amp_names_.insert(imp.local);
      import_by_local_[imp.local] = m_.imports.size();
      m_.imports.push_back(std::move(imp));
    }
  }

  void add_api(ApiKind kind, Node n, std::string_view spelling, Node value = Node{}) {
    ApiUse use;
    use.kind = kind;
    use.span = span(n);
    use.scope = scope_;
    use.spelling = std::string(spelling);
    if (is(n, s_.call)) {
      use.callee = span(field(n, s_.f_function));
      Node args = field(n, s_.f_arguments);
      use.arguments = null(args) ? use.callee : span(args);
    }
    if (!null(value)) use.value = span(value);
    m_.api_uses.push_back(std::move(use));
  }

  // Comments between a compound statement's header and its body are children of the statement
  // itself, which the handlers below do not walk as a whole.
  void note_comments(Node n) {
    for_each_child(n, [&](Node c) {
      if (is(c, s_.comment)) on_comment(c);
    });
  }

  void on_comment(Node n) {
    Comment c;
    c.span = span(n);
    uint32_t b = c.span.begin;
    while (b > 0 && (src_[b - 1] == ' ' || src_[b - 1] == '\t')) --b;
    c.own_line = b == 0 || src_[b - 1] == '\n' || src_[b - 1] == '\r';
    m_.comments.push_back(c);
  }

  void with_scope(ScopeId scope, Node body, int depth) {
    ScopeId saved = scope_;
    scope_ = scope;
    if (!null(body)) visit(body, depth + 1);
    scope_ = saved;
  }

  ScopeId new_scope(ScopeKind kind, int32_t index = -1) {
    return m_.add_scope(kind, scope_, index);
  }

  uint8_t region_of(Node expr) const {
    std::string name = dotted(is(expr, s_.call) ? field(expr, s_.f_function) : expr);
    std::string_view tail = last_component(name);
    std::string_view t = text(expr);
    if (tail == "no_grad" || tail == "inference_mode") return kRegionNoGrad;
    if (tail == "set_grad_enabled" && t.find("False") != std::string_view::npos)
      return kRegionNoGrad;
    if (tail == "autocast" || autocast_names_.count(name)) return kRegionAutocast;
    // An unresolved context manager named like autocast counts as AMP (silence over noise).
    if (!name.empty() && (name.find("autocast") != std::string::npos || tail == "amp" ||
                          tail.starts_with("amp_") || tail.ends_with("_amp"))) {
      return kRegionAutocast;
    }
    return kRegionNone;
  }

  void on_decorated(Node n, int depth) {
    uint8_t regions = kRegionNone;
    for_each_child(n, [&](Node c) {
      if (is(c, s_.decorator)) regions |= region_of(unparen(c.named_child(0)));
    });
    Node def = field(n, s_.f_definition);
    if (is(def, s_.function_definition)) return on_function(def, depth, regions);
    if (!null(def)) visit(def, depth + 1);
  }

  // In the body of a class defined at the module's top level.
  bool top_level_class() const {
    const Scope& scope = m_.scopes[scope_];
    return !class_name_.empty() && scope.kind == ScopeKind::Class && scope.parent != kNoScope &&
           m_.scopes[scope.parent].kind == ScopeKind::Module;
  }

  void on_class(Node n, int depth) {
    note_comments(n);
    const std::string_view saved_name = class_name_;
    std::string saved_bases = class_bases_;
    Node name = field(n, s_.f_name);
    Node bases = field(n, s_.f_superclasses);
    class_name_ = null(name) ? std::string_view{} : text(name);
    class_bases_ = null(bases) ? "" : std::string(text(bases));
    if (class_bases_.find("Trainer") != std::string::npos) trainer_classes_.emplace(class_name_);
    if (class_bases_.find("Module") != std::string::npos ||
        class_bases_.find("Sequential") != std::string::npos) {
      module_classes_.emplace(class_name_);
    }
    with_scope(new_scope(ScopeKind::Class), field(n, s_.f_body), depth);
    class_name_ = saved_name;
    class_bases_ = saved_bases;
  }

  void on_function(Node n, int depth, uint8_t regions) {
    note_comments(n);
    Function f;
    Node name = field(n, s_.f_name);
    f.name = null(name) ? "" : std::string(text(name));
    f.span = span(n);
    f.name_span = null(name) ? f.span : span(name);
    bool method = !class_name_.empty() && m_.scopes[scope_].kind == ScopeKind::Class;
    if (method) {
      bool lightning = class_bases_.find("LightningModule") != std::string::npos;
      bool hf_trainer = !lightning && class_bases_.find("Trainer") != std::string::npos;
      f.per_step_hook =
          (lightning && is_lightning_hook(f.name)) || (hf_trainer && is_hf_trainer_hook(f.name));
    }
    const int32_t index = static_cast<int32_t>(m_.functions.size());
    ScopeId scope = new_scope(ScopeKind::Function, index);
    m_.scopes[scope].regions = regions;
    f.scope = scope;
    m_.functions.push_back(f);
    std::string key = method ? std::string(class_name_) + "." + f.name : f.name;
    if (m_.scopes[scope_].kind == ScopeKind::Module || method)
      function_by_name_.emplace(key, index);

    NameSet params;
    Node parameters = field(n, s_.f_parameters);
    if (!null(parameters)) {
      const bool forward = method && f.name == "forward" && module_classes_.count(class_name_);
      for_each_child(parameters, [&](Node p) {
        Node id = is(p, s_.identifier) ? p : p.named_child(0);
        if (!is(id, s_.identifier)) return;
        params.emplace(text(id));
        m_.functions[index].parameters.emplace_back(text(id));
        parameter_names_.emplace(text(id));
        // forward()'s inputs are tensors, except options with a literal default
        // (`return_attn=False`); `labels=None` is a tensor when given.
        Node fallback = field(p, s_.f_value);
        if (forward && m_.functions[index].parameters.size() > 1 &&
            (null(fallback) || is(fallback, s_.none))) {
          tensor_names_.emplace(text(id));
        }
      });
      // A Lightning hook's batch holds tensors, as a loader loop's batch does.
      const std::vector<std::string>& list = m_.functions[index].parameters;
      if (f.per_step_hook && is_lightning_hook(f.name) && list.size() > 1 && list[0] == "self")
        tensor_names_.insert(list[1]);
    }
    for (const std::string& p : params) {
      if (looks_like_device(p) && !device_names_.count(p))
        device_names_[p] = {DeviceTarget::MaybeCuda};
    }

    int32_t saved_function = function_;
    bool saved_forward = in_forward_;
    std::vector<LoopState> saved_loops;
    saved_loops.swap(loop_stack_);
    function_ = index;
    in_forward_ = in_forward_ || (method && f.name == "forward");
    params_.push_back(std::move(params));
    with_scope(scope, field(n, s_.f_body), depth);
    params_.pop_back();
    loop_stack_.swap(saved_loops);
    in_forward_ = saved_forward;
    function_ = saved_function;
  }

  // ---- loops ---------------------------------------------------------------------------

  int32_t begin_loop(Node n, Node header_end) {
    Loop loop;
    loop.span = span(n);
    loop.header = {n.start(), null(header_end) ? n.start() : header_end.end()};
    loop.function = function_;
    loop.never_step = in_forward_;
    const int32_t index = static_cast<int32_t>(m_.loops.size());
    loop.scope = new_scope(ScopeKind::Loop, index);
    m_.loops.push_back(std::move(loop));
    LoopState state;
    state.loop = index;
    state.function = function_;
    loop_stack_.push_back(std::move(state));
    return index;
  }

  void end_loop() {
    LoopState& state = loop_stack_.back();
    std::vector<std::pair<size_t, std::vector<std::string_view>>> open;
    for (auto& [call, names] : state.carried_calls) {
      const bool carried = std::any_of(names.begin(), names.end(),
                                       [&](std::string_view n) { return state.bound.count(n); });
      if (carried) {
        pending_calls_[call].loop_data = true;
      } else {
        open.emplace_back(call, std::move(names));
      }
    }
    const int32_t function = state.function;
    loop_stack_.pop_back();
    // An enclosing loop of the same function may bind them later still.
    if (!loop_stack_.empty() && loop_stack_.back().function == function) {
      for (auto& entry : open) loop_stack_.back().carried_calls.push_back(std::move(entry));
    }
  }

  // The loader a name holds, directly or as `iter(loader)`; null for none.
  const int32_t* loader_named(std::string_view name) const {
    if (auto it = loader_names_.find(name); it != loader_names_.end()) return &it->second;
    if (auto it = loader_iter_names_.find(name); it != loader_iter_names_.end()) return &it->second;
    return nullptr;
  }

  // Links a loop to the loaders its iterable reads.
  void note_iterable(int32_t loop, Node iterable) {
    std::string_view t = text(iterable);
    if (is_module_container_iter(t)) {
      m_.loops[loop].never_step = true;
      return;
    }
    std::vector<std::string_view> names;
    read_names(iterable, names);
    note_iterated_parameters(loop, names);
    for (std::string_view name : names) {
      if (auto result = call_results_.find(name); result != call_results_.end())
        iterated_call_results_.emplace_back(result->second, loop);
      if (const int32_t* loader = loader_named(name)) {
        link_loader(loop, *loader);
      } else if (looks_like_loader(name)) {
        m_.loops[loop].iterates_loader = true;
      }
    }
    if (!loader_names_.empty() || !loader_iter_names_.empty()) {
      for (std::string_view name : names) {
        if (auto it = loader_names_.find(name); it != loader_names_.end())
          link_loader(loop, it->second);
      }
    }
  }

  // Parameters of a module-level function that its loop iterates, for callers elsewhere.
  void note_iterated_parameters(int32_t loop, const std::vector<std::string_view>& names) {
    if (function_ < 0 || params_.empty()) return;
    const Function& f = m_.functions[function_];
    if (m_.scopes[m_.scopes[f.scope].parent].kind != ScopeKind::Module) return;
    for (std::string_view name : names) {
      if (!params_.back().count(name)) continue;
      auto at = std::find(f.parameters.begin(), f.parameters.end(), name);
      const auto position = static_cast<int32_t>(at - f.parameters.begin());
      m_.iterated_parameters.push_back({function_, position, loop});
    }
  }

  void link_loader(int32_t loop, int32_t loader) {
    Loop& l = m_.loops[loop];
    l.iterates_loader = true;
    if (std::find(l.loaders.begin(), l.loaders.end(), loader) == l.loaders.end())
      l.loaders.push_back(loader);
    m_.loaders[loader].iterated = true;
  }

  void on_for(Node n, int depth) {
    note_comments(n);
    Node left = field(n, s_.f_left), right = field(n, s_.f_right);
    if (!null(right)) visit(right, depth + 1);  // the iterable is evaluated once
    int32_t loop = begin_loop(n, right);
    if (!null(right)) note_iterable(loop, right);
    std::vector<std::string_view> targets;
    target_names(left, targets);
    LoopState& state = loop_stack_.back();
    // `for step in range(n)` / `for i, batch in enumerate(loader)`: the first target counts.
    const bool counted = !null(right) && !targets.empty() &&
                         (contains_text(right, "range(") || contains_text(right, "enumerate("));
    if (counted) counter_names_.add(targets.front());
    for (size_t i = 0; i < targets.size(); ++i) {
      state.bound.add(targets[i]);
      if (m_.loops[loop].iterates_loader && !(counted && i == 0)) {
        state.cpu_batch.add(targets[i]);
        tensor_names_.add(targets[i]);
      }
    }
    Node body = field(n, s_.f_body);
    if (!null(right) && !null(body) && contains_text(right, ".parameters()") &&
        contains_text(body, ".grad")) {
      std::string_view b = text(body);
      if (b.find("-=") != std::string_view::npos || b.find("add_(") != std::string_view::npos ||
          b.find("sub_(") != std::string_view::npos ||
          b.find("addcmul_(") != std::string_view::npos) {
        add_api(ApiKind::ManualParamUpdate, n, "per-parameter update loop");
        m_.api_uses.back().span = m_.loops[loop].header;
      }
    }
    with_scope(m_.loops[loop].scope, body, depth);
    end_loop();
    Node alternative = field(n, s_.f_alternative);
    if (!null(alternative)) visit(alternative, depth + 1);
  }

  void on_while(Node n, int depth) {
    note_comments(n);
    Node condition = field(n, s_.f_condition);
    int32_t loop = begin_loop(n, condition);
    ScopeId saved = scope_;
    scope_ = m_.loops[loop].scope;
    if (!null(condition)) visit(condition, depth + 1);  // evaluated every iteration
    if (!null(condition)) pending_conditions_.emplace_back(condition, scope_);
    scope_ = saved;
    with_scope(m_.loops[loop].scope, field(n, s_.f_body), depth);
    end_loop();
    Node alternative = field(n, s_.f_alternative);
    if (!null(alternative)) visit(alternative, depth + 1);
  }

  // ---- branches ------------------------------------------------------------------------

  Guard classify_guard(Node condition) {
    std::vector<std::string_view> names;
    read_names(condition, names);
    bool rank = false, counter = false;
    for (std::string_view name : names) {
      if (is_rank_name(name)) rank = true;
      if (counter_names_.count(name) || looks_like_counter(name)) counter = true;
    }
    std::string_view t = text(condition);
    bool interval_op =
        t.find('%') != std::string_view::npos || t.find("==") != std::string_view::npos ||
        t.find('<') != std::string_view::npos || t.find('>') != std::string_view::npos ||
        t.find('(') != std::string_view::npos || t.find("not ") != std::string_view::npos;
    if (counter && interval_op) return Guard::Interval;
    if (rank) return Guard::Rank;
    return Guard::Data;
  }

  void on_if(Node n, int depth) {
    note_comments(n);
    Node condition = field(n, s_.f_condition);
    if (!null(condition)) visit(condition, depth + 1);
    if (!null(condition)) pending_conditions_.emplace_back(condition, scope_);
    Guard guard = null(condition) ? Guard::Data : classify_guard(condition);
    ScopeId branch = new_scope(ScopeKind::Branch);
    m_.scopes[branch].guard = guard;
    bool cuda_branch = !null(condition) && is_cuda_condition(condition);
    cuda_branch_stack_.push_back(cuda_branch);
    with_scope(branch, field(n, s_.f_consequence), depth);
    cuda_branch_stack_.pop_back();
    // elif / else: the else of a rank guard is a rank branch too (other ranks, every step).
    for_each_child(n, [&](Node c) {
      if (is(c, s_.elif_clause) || is(c, s_.else_clause)) note_comments(c);
      if (is(c, s_.elif_clause)) {
        Node cond = field(c, s_.f_condition);
        if (!null(cond)) visit(cond, depth + 1);
        if (!null(cond)) pending_conditions_.emplace_back(cond, scope_);
        ScopeId b = new_scope(ScopeKind::Branch);
        m_.scopes[b].guard = null(cond) ? Guard::Data : classify_guard(cond);
        cuda_branch_stack_.push_back(false);
        with_scope(b, field(c, s_.f_consequence), depth);
        cuda_branch_stack_.pop_back();
      } else if (is(c, s_.else_clause)) {
        ScopeId b = new_scope(ScopeKind::Branch);
        m_.scopes[b].guard = guard == Guard::Rank ? Guard::Rank : Guard::Data;
        cuda_branch_stack_.push_back(false);
        with_scope(b, field(c, s_.f_body), depth);
        cuda_branch_stack_.pop_back();
      }
    });
  }

  std::vector<bool> cuda_branch_stack_;

  bool is_cuda_condition(Node condition) const {
    std::string_view t = text(condition);
    return t.find("cuda") != std::string_view::npos || t.find("gpu") != std::string_view::npos ||
           t.find("GPU") != std::string_view::npos;
  }

  void on_try(Node n, int depth) {
    for_each_child(n, [&](Node c) {
      if (is(c, s_.except_clause) || is(c, s_.except_group_clause)) {
        with_scope(new_scope(ScopeKind::Handler), c, depth);
      } else {
        visit(c, depth + 1);
      }
    });
  }

  Autocast describe_autocast(Node expr, ScopeId body) {
    Autocast a;
    a.span = span(expr);
    a.scope = scope_;
    a.body = body;
    if (!is(expr, s_.call)) {
      a.dtype = AmpDtype::Unknown;  // a context variable: what it resolves to is not tracked
      return a;
    }
    std::string name(callee_name(expr));
    Args args = arguments(expr);
    Node device = args.positional.empty() ? keyword(args, "device_type") : args.positional.front();
    a.cpu = name.find("cpu.amp") != std::string::npos || string_value(device) == "cpu";
    if (!name.ends_with("autocast")) {
      a.dtype = AmpDtype::Unknown;
      return a;
    }
    Node dtype = keyword(args, "dtype");
    if (null(dtype)) {
      a.dtype =
          args.list_splat || !args.dict_splats.empty() ? AmpDtype::Unknown : AmpDtype::Default;
    } else {
      std::string_view t = text(dtype);
      a.dtype = t.find("bfloat16") != std::string_view::npos ? AmpDtype::BFloat16
                : (t.find("float16") != std::string_view::npos ||
                   t.find("half") != std::string_view::npos)
                    ? AmpDtype::Float16
                    : AmpDtype::Unknown;
    }
    return a;
  }

  void on_with(Node n, int depth) {
    note_comments(n);
    std::vector<std::pair<Node, bool>> opened;  // (context expression, is autocast)
    uint8_t regions = kRegionNone;
    for_each_child(n, [&](Node c) {
      if (!is(c, s_.with_clause)) return;
      for_each_child(c, [&](Node item) {
        Node value = is(item, s_.with_item) ? field(item, s_.f_value) : item;
        if (null(value)) return;
        visit(value, depth + 1);
        Node expr = unparen(value);
        // `with autocast() as ac`: the as_pattern wraps the expression.
        if (!is(expr, s_.call) && !is(expr, s_.identifier) && !is(expr, s_.attribute)) {
          expr = expr.named_child(0);
        }
        if (null(expr)) return;
        uint8_t region = region_of(expr);
        regions |= region;
        if (region & kRegionAutocast) opened.push_back({expr, true});
        std::string name = dotted(is(expr, s_.call) ? field(expr, s_.f_function) : expr);
        std::string_view tail = last_component(name);
        if (tail == "detect_anomaly") opened.push_back({expr, false});
        if (name.find("autograd.profiler.profile") != std::string::npos || tail == "emit_nvtx") {
          opened.push_back({expr, false});
        }
      });
    });
    ScopeId scope = new_scope(ScopeKind::With);
    m_.scopes[scope].regions = regions;
    for (const auto& [expr, autocast] : opened) {
      if (autocast) {
        m_.autocasts.push_back(describe_autocast(expr, scope));
        continue;
      }
      std::string name = dotted(is(expr, s_.call) ? field(expr, s_.f_function) : expr);
      add_api(last_component(name) == "detect_anomaly" ? ApiKind::DetectAnomaly
                                                       : ApiKind::AutogradProfiler,
              expr, name);
      m_.api_uses.back().body = scope;
    }
    with_scope(scope, field(n, s_.f_body), depth);
  }

  // ---- assignments ---------------------------------------------------------------------

  bool is_tensor_expr(Node n, int depth = 0) const {
    if (null(n) || depth > kMaxExprDepth) return false;
    TSSymbol sym = n.symbol();
    if (sym == s_.identifier) return tensor_names_.count(text(n)) > 0;
    if (sym == s_.parenthesized_expression) return is_tensor_expr(n.named_child(0), depth + 1);
    if (sym == s_.attribute) {
      std::string name = dotted(n);
      if (!name.empty() && tensor_names_.count(name)) return true;
      Node attr = field(n, s_.f_attribute);
      std::string_view a = null(attr) ? std::string_view{} : text(attr);
      return a == "loss" || a == "logits" || a == "last_hidden_state" || a == "T" ||
             (a == "data" && is_tensor_expr(field(n, s_.f_object), depth + 1));
    }
    if (sym == s_.subscript) return is_tensor_expr(field(n, s_.f_value), depth + 1);
    if (sym == s_.binary_operator || sym == s_.comparison_operator) {
      bool any = false;
      const_cast<Builder*>(this)->for_each_child(
          n, [&](Node c) { any = any || is_tensor_expr(c, depth + 1); });
      return any;
    }
    if (sym == s_.unary_operator) return is_tensor_expr(field(n, s_.f_argument), depth + 1);
    if (sym == s_.call) {
      std::string name(callee_name(n));
      if (!name.empty()) {
        if (is_tensor_function(name) || model_names_.count(name) || loss_names_.count(name) ||
            module_names_.count(name)) {
          return true;
        }
        if (is_functional_loss(name)) return true;
      }
      std::string_view method = method_of(n);
      if (!method.empty() && is_tensor_method(method))
        return is_tensor_expr(receiver_of(n), depth + 1);
      // `model.aux_loss()`: a loss the model computes is a tensor, as its forward's output is.
      if (method.ends_with("loss") && model_names_.count(dotted_view(receiver_of(n)))) return true;
    }
    return false;
  }

  // `device = cuda` in one branch and `device = cpu` in the other: the name may be either, and
  // a copy to it is not known to be a host copy.
  void bind_device(std::string_view name, DeviceTarget target) {
    auto [it, inserted] = device_names_.try_emplace(std::string(name), DeviceName{target});
    if (!inserted && it->second.target != target) it->second.target = DeviceTarget::MaybeCuda;
  }

  void on_assignment(Node n, int depth) {
    Node left = field(n, s_.f_left), right = field(n, s_.f_right);
    if (!null(right)) visit(right, depth + 1);
    std::vector<std::string_view> names;
    target_names(left, names);
    if (null(right)) return;
    Node value = unparen(right);
    on_setting(left, value);
    if (names.empty()) return;
    const std::string_view name = names.front();
    const bool single = names.size() == 1;
    const bool moved = moves_to_device(value);

    // Loop-carried facts: bound names, and batches moved or not on their way to the model.
    if (!loop_stack_.empty() && loop_stack_.back().function == function_) {
      LoopState& state = loop_stack_.back();
      const bool from_batch = !moved && reads_cpu_batch(value, state);
      for (std::string_view t : names) {
        state.bound.add(t);
        if (from_batch) {
          state.cpu_batch.add(t);
        } else {
          state.cpu_batch.remove(t);
        }
      }
    }

    for (std::string_view t : names) {
      if (!first_assignment_.count(t)) first_assignment_.emplace(t, span(n));
    }
    if (is_graph_expr(value)) {
      for (std::string_view t : names) grad_names_.add(t);
    } else {
      for (std::string_view t : names) grad_names_.remove(t);
    }
    if (single) {
      if (is_mask(value)) {
        mask_names_.add(name);
      } else {
        mask_names_.remove(name);
      }
    }
    const bool tensor = is_tensor_expr(value);
    for (std::string_view t : names) {
      if (tensor) tensor_names_.add(t);
      if (moved) on_device_names_.add(t);
    }
    if (contains_text(value, "autocast")) autocast_names_.add(name);

    if (!is(value, s_.call)) {
      // `meter = None` after `meter = Meter()`: the name no longer holds what the call returned.
      for (std::string_view t : names) call_results_.remove(t);
    }
    if (is(value, s_.call)) {
      const std::string_view callee = callee_name(value);
      std::string_view tail = last_component(callee);
      if (single && !m_.loaders.empty() && m_.loaders.back().call == span(value)) {
        loader_names_[std::string(name)] = static_cast<int32_t>(m_.loaders.size() - 1);
      }
      if (single && tail == "iter") {
        Node args = field(value, s_.f_arguments);
        Node arg = null(args) ? Node{} : args.named_child(0);
        const std::string_view inner = dotted_view(arg);
        if (auto it = loader_names_.find(inner); it != loader_names_.end()) {
          loader_iter_names_[std::string(name)] = it->second;
        } else if (looks_like_loader(inner)) {
          loader_iter_names_[std::string(name)] = -1;
        }
      }
      if (auto f = single ? loader_functions_.find(callee) : loader_functions_.end();
          f != loader_functions_.end()) {
        loader_names_[std::string(name)] = f->second;
      } else if (!callee.empty()) {
        // `train, val = make_loaders()`: each name holds part of what the call returned.
        for (std::string_view t : names) call_results_[std::string(t)] = callee;
      } else if (single) {
        // `model = Tagger(...).to(device)`: the instance of the constructor the chain starts at.
        Node root = value;
        for (int d = 0; d < kMaxExprDepth && is(root, s_.call) && callee_name(root).empty(); ++d) {
          const std::string_view m = method_of(root);
          if (m != "to" && m != "cuda" && m != "half" && m != "bfloat16" && m != "float") break;
          root = receiver_of(root);
        }
        if (const std::string_view constructor = is(root, s_.call) ? callee_name(root) : "";
            !constructor.empty()) {
          call_results_[std::string(name)] = constructor;
        }
      }
      if (single && (module_classes_.count(callee) || is_module_constructor(callee)))
        module_names_.add(name);
      if (callee == "wandb.init") tracker_runs_.add(name);  // `run.log(...)` is wandb.log
      if (tail == "Event" || tail == "Stream" || tail == "current_stream" ||
          tail == "default_stream") {
        sync_objects_.add(name);
      }
      if (is_loss_constructor(callee)) {
        loss_names_.add(name);
      } else if (is_optimizer_constructor(callee)) {
        optimizer_names_.add(name);
      }
      if (tail == "device" && callee.find("torch") != std::string_view::npos) {
        bind_device(name, classify_device(value));
      }
      if (tail == "compile" || tail == "DistributedDataParallel" || tail == "DDP" ||
          tail == "DataParallel" || tail == "FSDP") {
        Args wrapped = arguments(value);
        if (!wrapped.positional.empty()) {
          const std::string_view inner = dotted_view(wrapped.positional.front());
          if (!inner.empty() && model_names_.count(inner)) model_names_.add(name);
          // DDP(net) / torch.compile(net) of a model already on the device.
          if (on_device_names_.count(inner)) on_device_names_.add(name);
        }
      }
      // `model = model.to(device)` / `model = Net().cuda()`, also followed by a dtype or mode
      // switch: `AutoModel.from_pretrained(name).to("cuda").half().eval()`.
      Node to_call = value;
      for (int d = 0; d < kMaxExprDepth && is(to_call, s_.call); ++d) {
        const std::string_view m = method_of(to_call);
        if (m != "half" && m != "bfloat16" && m != "float" && m != "eval" && m != "train") break;
        to_call = receiver_of(to_call);
      }
      std::string_view method = method_of(to_call);
      if ((method == "to" || method == "cuda") &&
          !is_fill_factory(callee_name(receiver_of(to_call)))) {
        Node recv = receiver_of(to_call);
        const std::string_view root = dotted_view(recv);
        if ((is(recv, s_.call) && !is_tensor_function(callee_name(recv)) &&
             !is_parameterless_module(callee_name(recv))) ||
            model_names_.count(root)) {
          if (!is_loss_constructor(callee_name(recv))) model_names_.add(name);
        }
      }
    } else if (is(value, s_.string)) {
      std::string v = string_value(value);
      if (v == "cpu")
        bind_device(name, DeviceTarget::Cpu);
      else if (v.starts_with("cuda"))
        bind_device(name, DeviceTarget::Cuda);
    } else if (is(value, s_.conditional_expression) && single) {
      std::string_view t = text(value);
      if (t.find("\"cuda") != std::string_view::npos || t.find("'cuda") != std::string_view::npos) {
        device_names_[std::string(name)] = {DeviceTarget::MaybeCuda};
      }
    } else if (is(value, s_.identifier) && single) {
      const std::string_view source = text(value);
      if (!params_.empty() && params_.back().count(source)) passed_in_names_.add(name);
      if (auto it = device_names_.find(source); it != device_names_.end())
        device_names_[std::string(name)] = it->second;
      if (model_names_.count(source)) model_names_.add(name);
    }

    const bool literal = is(value, s_.integer) || is(value, s_.true_) || is(value, s_.false_);
    if (single && literal && m_.scopes[scope_].kind == ScopeKind::Module) {
      constants_[std::string(name)] = literal_number(value);
    } else if (single && literal && top_level_class()) {
      // `class CFG: num_workers = 0`, read as `CFG.num_workers`.
      constants_[std::string(class_name_) + "." + std::string(name)] = literal_number(value);
    } else if (m_.scopes[scope_].kind != ScopeKind::Module) {
      // `CFG.num_workers = args.workers` in main(): the class's value no longer holds.
      for (std::string_view t : names) {
        if (t.find('.') != std::string_view::npos) constants_.remove(t);
      }
    }
    if (single &&
        (is(value, s_.dictionary) || (is(value, s_.call) && callee_name(value) == "dict") ||
         is(value, s_.conditional_expression))) {
      auto& dict = dicts_[std::string(name)];
      dict.clear();
      dict.emplace_back(value, false);
    }
    if (single && looks_like_device(name) && !device_names_.count(name)) {
      device_names_[std::string(name)] = {classify_device(value)};
    }
  }

  // Settings written as assignments: TF32 switches and CUDA_LAUNCH_BLOCKING.
  void on_setting(Node left, Node value) {
    std::string target = dotted(left);
    if (target.ends_with(".allow_tf32") && (is(value, s_.true_) || is(value, s_.false_))) {
      add_api(is(value, s_.true_) ? ApiKind::Tf32Enabled : ApiKind::Tf32Disabled, left.parent(),
              target, value);
      return;
    }
    if (is(left, s_.subscript) && contains_text(left, "environ") &&
        contains_text(left, "CUDA_LAUNCH_BLOCKING") && string_value(value) == "1") {
      add_api(ApiKind::LaunchBlocking, left.parent(), "CUDA_LAUNCH_BLOCKING=1", value);
    }
  }

  // Does the value carry autograd history from this step: the model's or the loss's output,
  // not detached?
  bool is_graph_expr(Node n, int depth = 0) const {
    n = unparen(n);
    if (null(n) || depth > kMaxExprDepth) return false;
    if (is(n, s_.identifier)) return grad_names_.count(text(n)) > 0;
    if (is(n, s_.attribute)) {
      Node attr = field(n, s_.f_attribute);
      if (!null(attr) && text(attr) == "loss") return true;
      return grad_names_.count(dotted(n)) > 0;
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
      std::string callee(callee_name(n));
      if (!callee.empty() &&
          (model_names_.count(callee) || loss_names_.count(callee) || is_functional_loss(callee))) {
        return true;
      }
      // `.cpu()` is differentiable: the host copy keeps the graph.
      if (!method.empty() && (is_tensor_method(method) || method == "cpu"))
        return is_graph_expr(receiver_of(n), depth + 1);
      // `F.normalize(out)`, `pool(out, mask)` of this file: computed from the graph, part of it.
      static constexpr std::string_view kNoGradient[] = {
          "argmax", "argmin",  "argsort",      "eq",         "ne",          "lt",
          "gt",     "le",      "ge",           "isnan",      "isinf",       "isfinite",
          "equal",  "nonzero", "logical_and",  "logical_or", "logical_not", "count_nonzero",
          "unique", "where",   "searchsorted", "bucketize",  "allclose"};
      const std::string_view tail = last_component(callee);
      const bool differentiable =
          std::find(std::begin(kNoGradient), std::end(kNoGradient), tail) == std::end(kNoGradient);
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

  bool is_tensor_condition(Node n, int depth = 0) const {
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

  bool reads_cpu_batch(Node value, const LoopState& state) {
    if (state.cpu_batch.empty()) return false;
    Node root = value;
    for (int d = 0; d < kMaxExprDepth; ++d) {
      root = unparen(root);
      if (is(root, s_.subscript)) {
        root = field(root, s_.f_value);
      } else if (is(root, s_.attribute) && !state.cpu_batch.count(dotted_view(root))) {
        root = field(root, s_.f_object);
      } else {
        break;
      }
    }
    if (is(root, s_.identifier) || is(root, s_.attribute))
      return state.cpu_batch.count(dotted_view(root)) > 0;
    if (is(root, s_.tuple) || is(root, s_.expression_list) || is(root, s_.list)) {
      bool any = false;
      for_each_child(root, [&](Node c) { any = any || reads_cpu_batch(c, state); });
      return any;
    }
    return false;
  }

  int64_t literal_number(Node n) const {
    if (is(n, s_.true_)) return 1;
    if (is(n, s_.false_)) return 0;
    std::string t(text(n));
    std::erase(t, '_');
    try {
      return std::stoll(t, nullptr, 0);
    } catch (...) {
      return 0;
    }
  }

  void on_augmented(Node n, int depth) {
    visit_children(n, depth);
    Node left = field(n, s_.f_left), right = field(n, s_.f_right);
    std::string name = dotted(left);
    if (name.empty()) return;
    Node op = field(n, s_.f_operator);
    if (!null(op) && text(op) == "+=") note_accumulation(n, name, right);
    if (text(right) == "1") counter_names_.insert(name);
    if (is_tensor_expr(right)) tensor_names_.insert(name);
    if (!loop_stack_.empty()) loop_stack_.back().bound.insert(name);
  }

  // `total += loss` / `losses.append(loss)` into a name that outlives the step.
  void note_accumulation(Node n, const std::string& target, Node value) {
    if (null(value) || loop_stack_.empty() || loop_stack_.back().function != function_) return;
    Accumulation a;
    for (const LoopState& state : loop_stack_) {
      if (state.function == function_ && state.bound.count(target))
        a.reset_in.push_back(state.loop);
    }
    a.span = span(n);
    a.value = span(value);
    a.scope = scope_;
    a.loop = loop_stack_.back().loop;
    a.target = target;
    a.value_name = std::string(text(value).substr(0, 60));
    pending_accumulations_.emplace_back(value, std::move(a));
  }

  void on_return(Node n, int depth) {
    visit_children(n, depth);
    if (function_ < 0) return;
    Node value = unparen(n.named_child(0));
    if (null(value)) return;
    // A project helper returning an autocast context: `with mixed_precision():` is AMP.
    if (contains_text(value, "autocast")) autocast_names_.insert(m_.functions[function_].name);
    if (is(value, s_.expression_list) || is(value, s_.tuple)) {
      // `return train, val`: another module may unpack and iterate them.
      for_each_child(value, [&](Node element) {
        if (auto it = loader_names_.find(dotted(element)); it != loader_names_.end())
          tuple_loader_functions_[m_.functions[function_].name].push_back(it->second);
      });
      return;
    }
    int32_t loader = -1;
    if (is(value, s_.call) && !m_.loaders.empty() && m_.loaders.back().call == span(value)) {
      loader = static_cast<int32_t>(m_.loaders.size() - 1);
    } else if (auto it = loader_names_.find(dotted(value)); it != loader_names_.end()) {
      loader = it->second;
    }
    if (loader < 0) return;
    const std::string& fname = m_.functions[function_].name;
    bool lightning_hook = fname.ends_with("_dataloader") || fname == "train_dataloader";
    if (lightning_hook && !class_name_.empty()) {
      m_.loaders[loader].returned_from_hook = true;
    } else {
      loader_functions_[fname] = loader;
    }
  }

  // ---- calls ---------------------------------------------------------------------------

  DeviceTarget classify_device(Node n, int depth = 0) const {
    n = unparen(n);
    if (null(n) || depth > 8) return DeviceTarget::MaybeCuda;
    if (is(n, s_.string)) {
      std::string v = string_value(n);
      return v == "cpu"              ? DeviceTarget::Cpu
             : v.starts_with("cuda") ? DeviceTarget::Cuda
                                     : DeviceTarget::MaybeCuda;
    }
    if (is(n, s_.call)) {
      std::string callee(callee_name(n));
      if (last_component(callee) == "device") {
        Node args = field(n, s_.f_arguments);
        Node first = null(args) ? Node{} : args.named_child(0);
        if (!null(first)) return classify_device(first, depth + 1);
      }
      return DeviceTarget::MaybeCuda;
    }
    if (is(n, s_.identifier) || is(n, s_.attribute)) {
      auto it = device_names_.find(dotted(n));
      if (it != device_names_.end()) return it->second.target;
    }
    return DeviceTarget::MaybeCuda;
  }

  // Is this expression a device at all (and not a dtype or another tensor)?
  bool is_device_expr(Node n) const {
    n = unparen(n);
    if (null(n)) return false;
    if (is(n, s_.string)) {
      std::string v = string_value(n);
      return v == "cpu" || v.starts_with("cuda") || v == "mps";
    }
    if (is(n, s_.call)) return last_component(callee_name(n)) == "device";
    if (is(n, s_.identifier) || is(n, s_.attribute)) {
      std::string name = dotted(n);
      if (device_names_.count(name)) return true;
      std::string_view tail = last_component(name);
      return looks_like_device(name) && tail.find("dtype") == std::string_view::npos;
    }
    if (is(n, s_.conditional_expression)) return contains_text(n, "cuda");
    return false;
  }

  struct Args {
    std::vector<Node> positional;
    std::vector<std::pair<std::string_view, Node>> keywords;
    std::vector<Node> dict_splats;
    bool list_splat = false;
  };

  Args arguments(Node call) {
    Args a;
    Node list = field(call, s_.f_arguments);
    if (!is(list, s_.argument_list)) return a;
    for_each_child(list, [&](Node c) {
      if (is(c, s_.keyword_argument)) {
        Node name = field(c, s_.f_name), value = field(c, s_.f_value);
        if (!null(name) && !null(value)) a.keywords.emplace_back(text(name), value);
      } else if (is(c, s_.dictionary_splat)) {
        a.dict_splats.push_back(c.named_child(0));
      } else if (is(c, s_.list_splat)) {
        a.list_splat = true;
      } else if (!is(c, s_.comment)) {
        a.positional.push_back(c);
      }
    });
    return a;
  }

  static Node keyword(const Args& a, std::string_view name) {
    for (const auto& [k, v] : a.keywords) {
      if (k == name) return v;
    }
    return Node{};
  }

  void on_call(Node n, int depth) {
    if (call_depth_ >= kMaxCallDepth) return note_too_deep(n);
    const std::string_view callee = callee_name(n);
    const std::string_view method = method_of(n);
    const std::string_view tail = last_component(callee);
    const bool output = is_output_call(callee, method, n);
    bool saved_output = in_output_;
    in_output_ = in_output_ || output;
    ++call_depth_;
    visit_children(n, depth);
    --call_depth_;
    in_output_ = saved_output;

    Args args = arguments(n);
    if (Node device = keyword(args, "device"); !null(device) && is_device_expr(device)) {
      add_move(n, classify_device(device), {}, false);
    }

    if (!method.empty()) on_method_call(n, callee, method, args, output);
    const bool optimizer = is_optimizer_constructor(callee);
    on_api_call(n, {callee, tail, method, optimizer}, args);
    if (tail == "DataLoader" || tail == "make_data_loader") on_loader(n, args);
    if (callee == "print") add_output(n, OutputKind::Console, callee);
    if ((callee == "float" || callee == "int" || callee == "bool") && args.positional.size() == 1 &&
        args.keywords.empty()) {
      pending_converts_.push_back({n, args.positional.front(), scope_, in_output_});
    }
    if (callee == "next" && !args.positional.empty()) on_next(args.positional.front());
    if (tail == "Trainer" || tail == "Accelerator" || tail == "Fabric" ||
        trainer_classes_.count(tail)) {
      on_framework(n, tail, args);
    }
    if (tail == "TrainingArguments" || tail == "Seq2SeqTrainingArguments") {
      bool cpu = is(keyword(args, "no_cuda"), s_.true_) || is(keyword(args, "use_cpu"), s_.true_);
      if (!cpu) m_.framework_gpu = true;
      for (std::string_view k : {"bf16", "fp16"}) {
        if (Node v = keyword(args, k); is(v, s_.true_)) m_.file_level_amp = true;
      }
    }
    if (optimizer && !args.positional.empty()) {
      std::string root = dotted(receiver_of(unparen(args.positional.front())));
      if (!root.empty() && root != "self") model_names_.insert(root);
    }
    if ((tail == "DistributedDataParallel" || tail == "DDP" || tail == "DataParallel") &&
        !args.positional.empty()) {
      std::string model = dotted(args.positional.front());
      if (!model.empty()) model_names_.insert(model);
    }
    const bool self_call =
        callee.starts_with("self.") && std::count(callee.begin(), callee.end(), '.') == 1;
    if (!callee.empty() && (callee.find('.') == std::string::npos || self_call)) {
      std::vector<std::string_view> read;
      const bool loop_data = has_loop_data(args, read);
      pending_calls_.push_back(
          {callee, self_call ? class_name_ : std::string_view{}, span(n), scope_, loop_data});
      if (!loop_data && !loop_stack_.empty() && loop_stack_.back().function == function_)
        loop_stack_.back().carried_calls.emplace_back(pending_calls_.size() - 1, std::move(read));
      note_instance_call(n, callee);
    } else if (!callee.empty() && !callee.starts_with("self.")) {
      pending_dotted_calls_.push_back({callee, {}, span(n), scope_, false});
      note_method_of_instance(n, callee, method);
    }
    if (!callee.empty()) note_flows(callee, args);
    if (!callee.empty()) note_model_inputs(n, callee, args);
  }

  // `x.update(...)` where `x = MetricLogger(...)` (a class: the name is capitalised): the
  // method runs, wherever the class is defined.
  void note_method_of_instance(Node n, std::string_view callee, std::string_view method) {
    const size_t dot = callee.find('.');
    if (call_results_.empty() || dot == std::string::npos ||
        dot + 1 + method.size() != callee.size())
      return;
    auto it = call_results_.find(std::string_view(callee).substr(0, dot));
    if (it == call_results_.end()) return;
    const std::string_view klass = last_component(it->second);
    if (klass.empty() || !std::isupper(static_cast<unsigned char>(klass.front()))) return;
    pending_method_calls_.push_back({it->second, std::string(method), span(n), scope_});
  }

  // `model(x)` where `model = Tagger(...)`: calling a module instance runs Tagger.forward.
  void note_instance_call(Node n, std::string_view callee) {
    if (call_results_.empty()) return;
    auto it = call_results_.find(callee);
    if (it == call_results_.end()) return;
    const std::string_view klass = last_component(it->second);
    if (klass.empty() || !std::isupper(static_cast<unsigned char>(klass.front()))) return;
    pending_method_calls_.push_back({it->second, "forward", span(n), scope_});
  }

  // Arguments holding another call's result, for the linker (see ArgumentFlow).
  void note_flows(std::string_view callee, const Args& args) {
    if (call_results_.empty()) return;
    auto source = [&](Node arg) -> const std::string* {
      if (!is(arg, s_.identifier)) return nullptr;
      auto it = call_results_.find(text(arg));
      return it == call_results_.end() ? nullptr : &it->second;
    };
    for (size_t i = 0; i < args.positional.size() && !args.list_splat; ++i) {
      if (const std::string* from = source(args.positional[i]))
        pending_flows_.push_back({std::string(callee), static_cast<int32_t>(i), {}, *from});
    }
    for (const auto& [name, value] : args.keywords) {
      if (const std::string* from = source(value))
        pending_flows_.push_back({std::string(callee), -1, std::string(name), *from});
    }
  }

  // What on_call has already worked out about a call's callee, so it is not worked out again.
  struct Callee {
    std::string_view name, tail, method;
    bool optimizer;  // is_optimizer_constructor(name)
  };

  void on_api_call(Node n, const Callee& c, const Args& args) {
    const std::string_view callee = c.name, tail = c.tail, method = c.method;
    Node first = args.positional.empty() ? Node{} : args.positional.front();
    if (tail == "DataParallel" || callee.ends_with("parallel.data_parallel")) {
      add_api(ApiKind::DataParallel, n, callee);
    }
    if ((tail == "autocast" || tail == "GradScaler") &&
        (callee.starts_with("torch.cuda.amp.") || callee.starts_with("torch.cpu.amp.") ||
         callee.starts_with("cuda.amp.") || deprecated_amp_names_.count(callee))) {
      add_api(ApiKind::DeprecatedAmp, n, callee);
    }
    if (tail == "GradScaler" || tail == "ShardedGradScaler")
      add_api(ApiKind::GradScaler, n, callee);
    if (tail == "set_detect_anomaly" && is(first, s_.true_))
      add_api(ApiKind::DetectAnomaly, n, callee, first);
    if (tail == "zero_grad") {
      Node v = keyword(args, "set_to_none");
      if (null(v)) v = first;
      if (is(v, s_.false_))
        add_api(ApiKind::ZeroGradKeep, n, callee.empty() ? "zero_grad" : callee, v);
    }
    if (c.optimizer) {
      if (Node v = keyword(args, "foreach"); is(v, s_.false_))
        add_api(ApiKind::ForeachDisabled, n, callee, v);
    }
    if (tail == "DistributedDataParallel" || tail == "DDP") {
      Node v = keyword(args, "find_unused_parameters");
      if (is(v, s_.true_)) add_api(ApiKind::FindUnusedParameters, n, callee, v);
    }
    if (tail == "set_float32_matmul_precision" && is(first, s_.string)) {
      std::string v = string_value(first);
      if (v == "highest") add_api(ApiKind::Tf32Disabled, n, callee, first);
      if (v == "high" || v == "medium") add_api(ApiKind::Tf32Enabled, n, callee, first);
    }
    if (callee == "torch.compile" ||
        (method == "compile" && model_names_.count(dotted(receiver_of(n))))) {
      std::string subject = callee == "torch.compile" ? dotted(first) : dotted(receiver_of(n));
      add_api(ApiKind::Compile, n, callee.empty() ? "compile" : callee);
      m_.api_uses.back().subject = subject;
      compiled_names_.insert(subject);
      Node parent = n.parent();
      if (is(parent, s_.assignment)) {
        std::vector<std::string_view> names;
        target_names(field(parent, s_.f_left), names);
        for (std::string_view name : names) compiled_names_.add(name);
      }
    }
    if (callee.ends_with("cuda.empty_cache"))
      add_sync(n, SyncKind::EmptyCache, std::string(callee) + "()");
    static constexpr std::string_view kDynamic[] = {
        "nonzero", "argwhere",           "masked_select",
        "unique",  "unique_consecutive", "repeat_interleave"};
    // `torch.nonzero(x)` has the method `nonzero` too: every match has the op as its method.
    for (std::string_view op : kDynamic) {
      if (method != op) continue;
      const bool as_function = callee.starts_with("torch.") && callee.substr(6) == op;
      if (op == "repeat_interleave" && !null(keyword(args, "output_size"))) break;
      if (as_function) {
        dynamic(n, (std::string(callee) + "(...)").c_str());
      } else {
        pending_dynamic_.emplace_back(n, scope_);
      }
      break;
    }
    on_module_construction(n, callee, tail, args);
  }

  void dynamic(Node n, const char* spelling) {
    m_.dynamic_shapes.push_back({span(n), scope_, spelling});
  }

  // `nn.Linear`, `torch.nn.Conv2d`: a module of torch.nn (containers included).
  static bool is_module_constructor(std::string_view callee) {
    if (!callee.starts_with("nn.") && !callee.starts_with("torch.nn.")) return false;
    const std::string_view tail = last_component(callee);
    return !tail.empty() && std::isupper(static_cast<unsigned char>(tail[0])) &&
           callee.find(".functional.") == std::string::npos &&
           callee.find(".utils.") == std::string::npos &&
           callee.find(".init.") == std::string::npos && tail != "Parameter" &&
           tail != "ParameterList" && tail != "ParameterDict" && tail != "ModuleList" &&
           tail != "ModuleDict";
  }

  void on_module_construction(Node n, std::string_view callee, std::string_view tail,
                              const Args& args) {
    if (!is_module_constructor(callee)) return;
    static constexpr std::string_view kNotModules[] = {"Module", "Sequential", "DataParallel",
                                                       "DistributedDataParallel"};
    for (std::string_view k : kNotModules) {
      if (tail == k) return;
    }
    ModuleConstruction mc;
    mc.span = span(n);
    mc.scope = scope_;
    mc.spelling = callee;
    mc.in_forward = in_forward_;
    mc.has_parameters = !is_parameterless_module(callee);
    for (Node p : args.positional) {
      if (is(p, s_.integer)) mc.dims.emplace_back(literal_number(p), span(p));
    }
    static constexpr std::string_view kDimKeywords[] = {"in_features",    "out_features",
                                                        "num_embeddings", "embedding_dim",
                                                        "in_channels",    "out_channels"};
    for (std::string_view k : kDimKeywords) {
      if (Node v = keyword(args, k); is(v, s_.integer))
        mc.dims.emplace_back(literal_number(v), span(v));
    }
    m_.modules.push_back(std::move(mc));
  }

  bool has_loop_data(const Args& args, std::vector<std::string_view>& names) {
    // Outside loops only a helper's parameters count, and outside functions nothing does.
    if (loop_stack_.empty() && (params_.empty() || params_.back().empty())) return false;
    for (Node p : args.positional) read_names(p, names);
    for (const auto& kv : args.keywords) read_names(kv.second, names);
    for (Node d : args.dict_splats) read_names(d, names);
    for (std::string_view name : names) {
      // This function's loops are the top of the stack; below them are the enclosing functions'.
      for (auto it = loop_stack_.rbegin(); it != loop_stack_.rend() && it->function == function_;
           ++it) {
        if (it->bound.count(name)) return true;
      }
      if (loop_stack_.empty() && !params_.empty() && params_.back().count(name)) return true;
    }
    return false;
  }

  // Arguments taken straight from a loader batch, for GL301; judged once names are known.
  void note_model_inputs(Node call, std::string_view callee, const Args& args) {
    if (loop_stack_.empty() || loop_stack_.back().function != function_) return;
    const LoopState& state = loop_stack_.back();
    if (state.cpu_batch.empty()) return;
    auto check = [&](Node arg) {
      if (null(arg) || !reads_cpu_batch(arg, state) || moves_to_device(arg)) return;
      UnmovedInput input;
      input.span = span(arg);
      input.scope = scope_;
      input.loop = state.loop;
      input.name = std::string(text(arg));
      input.model = callee;
      pending_inputs_.push_back({std::string(callee), std::move(input)});
    };
    for (Node p : args.positional) check(p);
    for (const auto& kv : args.keywords) check(kv.second);
    for (Node d : args.dict_splats) check(d);
    (void)call;
  }

  bool is_output_call(std::string_view callee, std::string_view method, Node call) const {
    if (callee == "print") return true;
    if (method.empty()) return false;
    const std::string_view receiver = dotted_view(receiver_of(call));
    return (is_logging_method(method) && is_logger_receiver(receiver)) || method == "set_postfix" ||
           method == "set_description" || method == "set_postfix_str" ||
           (method == "write" && (last_component(receiver) == "tqdm" || is_console(receiver))) ||
           is_metrics_method(method) ||
           (method == "log" &&
            (receiver == "wandb" || receiver == "mlflow" || tracker_runs_.count(receiver)));
  }

  static bool is_console(std::string_view receiver) {
    return receiver == "sys.stdout" || receiver == "sys.stderr";
  }

  void add_output(Node n, OutputKind kind, std::string_view callee) {
    m_.outputs.push_back({kind, span(n), scope_, std::string(callee)});
  }

  void add_move(Node n, DeviceTarget target, std::string receiver, bool non_blocking) {
    m_.moves.push_back({span(n), scope_, target, std::move(receiver), non_blocking});
  }

  void add_sync(Node n, SyncKind kind, std::string spelling) {
    m_.syncs.push_back({kind, span(n), scope_, std::move(spelling), in_output_});
  }

  bool is_host_copy_call(Node n) {
    if (!is(n, s_.call)) return false;
    std::string_view method = method_of(n);
    if (method == "cpu") return true;
    if (method == "to") {
      Args a = arguments(n);
      Node d = a.positional.empty() ? keyword(a, "device") : a.positional.front();
      return !null(d) && is_device_expr(d) && classify_device(d) == DeviceTarget::Cpu;
    }
    return false;
  }

  // `output`: is_output_call's answer for this call, which on_call has already asked.
  void on_method_call(Node n, std::string_view callee, std::string_view method, const Args& args,
                      bool output) {
    Node recv = unparen(receiver_of(n));
    const std::string receiver = dotted(recv);
    const bool recv_copied =
        is_host_copy_call(recv) || (is(recv, s_.call) && method_of(recv) == "numpy");
    const bool recv_numpy = numpy_names_.count(receiver) || receiver.starts_with("np.");

    if (output) {
      OutputKind kind = is_console(receiver) ? OutputKind::Console
                        : method == "set_postfix" || method == "set_description" ||
                                method == "set_postfix_str" || method == "write"
                            ? OutputKind::ProgressBar
                        : is_metrics_method(method) || method == "log" ? OutputKind::MetricsWriter
                                                                       : OutputKind::Logging;
      add_output(n, kind, callee.empty() ? method : callee);
    }

    if (method == "item" && args.positional.empty() && !recv_copied && !recv_numpy) {
      add_sync(n, SyncKind::Item, ".item()");
    } else if (method == "tolist" && args.positional.empty() && !recv_copied && !recv_numpy) {
      add_sync(n, SyncKind::ToList, ".tolist()");
    } else if (method == "cpu" && args.positional.empty()) {
      add_sync(n, SyncKind::HostCopy, ".cpu()");
    } else if (method == "to") {
      Node d = args.positional.empty() ? keyword(args, "device") : args.positional.front();
      if (!null(d) && is_device_expr(d)) {
        DeviceTarget target = classify_device(d);
        Node nb = keyword(args, "non_blocking");
        if (target == DeviceTarget::Cpu) {
          add_sync(n, SyncKind::HostCopy, ".to(\"cpu\")");
        } else {
          on_device_move(n, recv, receiver, target, is(nb, s_.true_), text(d));
        }
      }
      note_model_dtype(n, receiver, args);
    } else if (method == "cuda") {
      Node nb = keyword(args, "non_blocking");
      on_device_move(n, recv, receiver, DeviceTarget::Cuda, is(nb, s_.true_), "\"cuda\"");
    } else if (method == "synchronize") {
      std::string_view rtext = text(recv);
      bool device_sync = callee == "torch.cuda.synchronize" || callee == "cuda.synchronize" ||
                         rtext.find("stream") != std::string_view::npos ||
                         rtext.find("Stream") != std::string_view::npos ||
                         rtext.find("event") != std::string_view::npos ||
                         rtext.find("Event") != std::string_view::npos ||
                         sync_objects_.count(receiver);
      if (device_sync)
        add_sync(n, SyncKind::Synchronize,
                 callee.empty() ? ".synchronize()" : std::string(callee) + "()");
    } else if (method == "backward" || method == "manual_backward") {
      m_.events.push_back({StepEventKind::Backward, span(n), scope_, {}});
      // What backward() is called on is a tensor: `loss.backward()`, `backward(loss)`.
      std::string loss = method == "backward" && !receiver.empty() ? receiver
                         : args.positional.empty()                 ? std::string()
                                                   : dotted(args.positional.front());
      if (!loss.empty()) tensor_names_.insert(loss);
      // What backward() runs on carries autograd history, whatever computed it.
      if (!loss.empty()) grad_names_.insert(loss);
      Backward b{{}, function_, span(n), scope_};
      read_names(method == "backward"      ? recv
                 : args.positional.empty() ? Node{}
                                           : args.positional.front(),
                 b.names);
      backwards_.push_back(std::move(b));
    } else if (method == "scale" && last_component(receiver).find("scaler") != std::string::npos) {
      // A scaler passed in from another module (`scaler.scale(loss).backward()`) scales the loss
      // as well as one built here.
      add_api(ApiKind::GradScaler, n, callee);
    } else if (method == "step") {
      std::string_view tail = last_component(receiver);
      bool optimizer = optimizer_names_.count(receiver) ||
                       tail.find("opt") != std::string_view::npos ||
                       tail.find("scaler") != std::string_view::npos;
      bool scheduler = tail.find("sched") != std::string_view::npos;
      if (optimizer && !scheduler)
        m_.events.push_back({StepEventKind::OptimizerStep, span(n), scope_, {}});
    } else if ((method == "train" || method == "eval") && args.positional.size() <= 1 &&
               !receiver.empty() && receiver != "self" && !is_loss_constructor(receiver)) {
      if (!loss_names_.count(receiver)) model_names_.insert(receiver);
    } else if (method == "half" || method == "bfloat16") {
      note_reduced_dtype(n, receiver, true);
    } else if (method == "float") {
      if (model_names_.count(receiver)) model_dtypes_.push_back({receiver, false});
    } else if (method == "append" && args.positional.size() == 1 && !receiver.empty()) {
      note_accumulation(n, receiver, args.positional.front());
    } else if (method == "update" && dicts_.count(receiver) && args.positional.size() == 1) {
      // `kwargs.update({...})`: under `if use_cuda:` (or no branch) it counts; under any other
      // branch the dict's contents are not known.
      bool other_branch = false, cuda_branch = false;
      for (bool cuda : cuda_branch_stack_) (cuda ? cuda_branch : other_branch) = true;
      if (other_branch && !cuda_branch) {
        dicts_[receiver].emplace_back(Node{}, false);
      } else {
        dicts_[receiver].emplace_back(args.positional.front(), true);
      }
    } else if (method == "fit" || method == "prepare" || method == "validate" || method == "test") {
      for (Node p : args.positional) hand_to_framework(p);
      for (const auto& kv : args.keywords) hand_to_framework(kv.second);
    }
  }

  void hand_to_framework(Node arg) {
    std::string name = dotted(arg);
    if (auto it = loader_names_.find(name); it != loader_names_.end()) {
      m_.loaders[it->second].handed_to_trainer = true;
    } else if (is(arg, s_.call) && !m_.loaders.empty() &&
               m_.loaders.back().call.end <= span(arg).end &&
               span(arg).contains(m_.loaders.back().call)) {
      m_.loaders.back().handed_to_trainer = true;
    }
    if (model_names_.count(name)) m_.moved_models.push_back(name);
  }

  void note_model_dtype(Node n, const std::string& receiver, const Args& args) {
    std::string_view t = text(field(n, s_.f_arguments));
    bool reduced = t.find("float16") != std::string_view::npos ||
                   t.find("bfloat16") != std::string_view::npos ||
                   t.find("half") != std::string_view::npos;
    bool full = t.find("float32") != std::string_view::npos;
    if (reduced || full) note_reduced_dtype(n, receiver, reduced);
    (void)args;
  }

  void note_reduced_dtype(Node n, const std::string& receiver, bool reduced) {
    // `model.half().float()` ends in fp32: a later `.float()` on the chain wins.
    Node parent = n.parent();
    if (is(parent, s_.attribute)) {
      Node attr = field(parent, s_.f_attribute);
      if (!null(attr) && text(attr) == "float") return;
    }
    std::string root = receiver;
    if (root.empty()) {
      Node r = receiver_of(n);
      while (is(r, s_.call)) r = receiver_of(r);
      root = dotted(r);
    }
    if (!root.empty()) model_dtypes_.push_back({root, reduced});
  }

  void on_device_move(Node n, Node recv, const std::string& receiver, DeviceTarget target,
                      bool non_blocking, std::string_view device) {
    add_move(n, target, receiver, non_blocking);
    if (!loop_stack_.empty() && loop_stack_.back().function == function_ &&
        reads_cpu_batch(recv, loop_stack_.back())) {
      m_.batch_moves.push_back({span(n), scope_, loop_stack_.back().loop, non_blocking});
    }
    if (!receiver.empty() && model_names_.count(receiver)) m_.moved_models.push_back(receiver);
    if (is(recv, s_.call)) {
      std::string factory(callee_name(recv));
      if (is_fill_factory(factory)) {
        FactoryMove fm;
        fm.span = span(n);
        fm.factory = span(recv);
        Node fargs = field(recv, s_.f_arguments);
        fm.factory_args = null(fargs) ? fm.factory : span(fargs);
        fm.move = {recv.end(), n.end()};
        fm.factory_name = factory;
        fm.device = std::string(device);
        fm.scope = scope_;
        bool has_device = !null(fargs) && contains_text(fargs, "device=");
        // `torch.zeros_like(t)` fills on t's device: with t already moved, nothing is copied.
        if (factory.ends_with("_like") && !null(fargs) &&
            on_device_names_.count(dotted(fargs.named_child(0)))) {
          has_device = true;
        }
        if (!has_device) m_.factory_moves.push_back(std::move(fm));
      } else if (!is_tensor_function(factory) && !factory.empty()) {
        // `Net().to(device)`: a module built and moved in one go is a model.
        std::string_view tail = last_component(factory);
        if (!is_parameterless_module(factory) && !tail.empty() &&
            std::isupper(static_cast<unsigned char>(tail[0]))) {
          Node parent = n.parent();
          if (is(parent, s_.assignment)) {
            std::vector<std::string_view> names;
            target_names(field(parent, s_.f_left), names);
            for (std::string_view name : names) {
              model_names_.add(name);
              m_.moved_models.emplace_back(name);
            }
          }
        }
      }
    }
  }

  void on_next(Node arg) {
    std::string name = dotted(arg);
    int32_t loader = -1;
    bool known = false;
    if (auto it = loader_iter_names_.find(name); it != loader_iter_names_.end()) {
      loader = it->second, known = true;
    } else if (is(arg, s_.call) && last_component(callee_name(arg)) == "iter") {
      Args a = arguments(arg);
      std::string inner = a.positional.empty() ? "" : dotted(a.positional.front());
      if (auto it = loader_names_.find(inner); it != loader_names_.end()) {
        loader = it->second, known = true;
      } else {
        known = looks_like_loader(inner);
      }
      if (loop_stack_.empty() && loader >= 0) {
        m_.loaders[loader].read_once = true;
        return;
      }
    } else {
      known = looks_like_loader(name);
    }
    if (!known || loop_stack_.empty() || loop_stack_.back().function != function_) return;
    int32_t loop = loop_stack_.back().loop;
    if (loader >= 0) {
      link_loader(loop, loader);
    } else {
      m_.loops[loop].iterates_loader = true;
    }
  }

  void on_framework(Node n, std::string_view tail, const Args& args) {
    (void)n;
    Node accelerator = keyword(args, "accelerator");
    std::string acc = string_value(accelerator);
    bool cpu = acc == "cpu" || acc == "mps";
    if (tail == "Accelerator") cpu = is(keyword(args, "cpu"), s_.true_);
    if (!cpu) m_.framework_gpu = true;
    Node precision = keyword(args, tail == "Accelerator" ? "mixed_precision" : "precision");
    if (!null(precision)) {
      std::string p =
          is(precision, s_.string) ? string_value(precision) : std::string(text(precision));
      if (p != "32" && p != "no" && p != "32-true" && p != "64" && p != "None")
        m_.file_level_amp = true;
    }
  }

  // ---- loaders -------------------------------------------------------------------------

  Value resolve(Node n) const {
    Value v;
    v.state = Value::State::Unknown;
    v.span = span(n);
    n = unparen(n);
    if (is(n, s_.integer) || is(n, s_.true_) || is(n, s_.false_)) {
      v.state = Value::State::Known;
      v.number = literal_number(n);
      v.is_bool = !is(n, s_.integer);
    } else if (is(n, s_.identifier) || is(n, s_.attribute)) {
      const std::string name = dotted(n);
      if (auto it = constants_.find(name); it != constants_.end()) {
        v.state = Value::State::Known;
        v.number = it->second;
      } else if (auto target = imported_target(name)) {
        // Wanted even once known, so the link that answers it is made again every round.
        imported_constants_.push_back({target->first, target->second, name});
        if (auto in = inbound_constant(name)) {
          v.state = Value::State::Known;
          v.number = *in;
        }
      }
    }
    return v;
  }

  std::optional<int64_t> inbound_constant(const std::string& name) const {
    for (const auto& [local, value] : inbound_.constants) {
      if (local == name) return value;
    }
    return std::nullopt;
  }

  // Keyword values from a `**kwargs` whose dict is built in this file. Returns false when the
  // dict cannot be read.
  bool splat_values(Node splat, std::vector<std::pair<std::string, Node>>& out, int depth = 0) {
    splat = unparen(splat);
    if (null(splat) || depth > 4) return false;
    if (is(splat, s_.dictionary)) {
      bool ok = true;
      for_each_child(splat, [&](Node p) {
        if (is(p, s_.pair)) {
          std::string key = string_value(field(p, s_.f_key));
          if (key.empty())
            ok = false;
          else
            out.emplace_back(key, field(p, s_.f_value));
        } else if (!is(p, s_.comment)) {
          ok = false;
        }
      });
      return ok;
    }
    if (is(splat, s_.call) && callee_name(splat) == "dict") {
      Args a = arguments(splat);
      for (const auto& [k, v] : a.keywords) out.emplace_back(std::string(k), v);
      return a.positional.empty() && !a.list_splat && a.dict_splats.empty();
    }
    if (is(splat, s_.conditional_expression)) {
      // `{...} if use_cuda else {}`: the CUDA branch is the one that counts.
      Node first = splat.named_child(0), cond = splat.named_child(1);
      if (null(cond) || !is_cuda_condition(cond)) return false;
      return splat_values(first, out, depth + 1);
    }
    if (is(splat, s_.identifier)) {
      auto it = dicts_.find(text(splat));
      if (it == dicts_.end()) return false;
      for (const auto& entry : it->second) {
        if (null(entry.first) || !splat_values(entry.first, out, depth + 1)) return false;
      }
      return true;
    }
    return false;
  }

  void on_loader(Node n, const Args& args) {
    Loader l;
    l.call = span(n);
    l.callee = span(field(n, s_.f_function));
    Node arglist = field(n, s_.f_arguments);
    l.arguments = null(arglist) ? l.call : span(arglist);
    l.scope = scope_;
    l.splat_unknown = args.list_splat;
    l.batch_sampler = !null(keyword(args, "batch_sampler"));
    std::vector<std::pair<std::string, Node>> kw;
    for (const auto& [k, v] : args.keywords) kw.emplace_back(std::string(k), v);
    for (Node splat : args.dict_splats) {
      std::vector<std::pair<std::string, Node>> more;
      if (splat_values(splat, more)) {
        kw.insert(kw.end(), more.begin(), more.end());
      } else {
        l.splat_unknown = true;
      }
    }
    // DataLoader(dataset, batch_size=1, shuffle, sampler, batch_sampler, num_workers, collate_fn,
    // pin_memory, ...)
    auto positional = [&](size_t index) -> Node {
      return index < args.positional.size() ? args.positional[index] : Node{};
    };
    auto value = [&](std::string_view name, size_t index) {
      for (auto it = kw.rbegin(); it != kw.rend(); ++it) {
        if (it->first == name) return resolve(it->second);
      }
      if (Node p = positional(index); !null(p)) return resolve(p);
      Value absent;
      if (l.splat_unknown) absent.state = Value::State::Unknown;
      return absent;
    };
    l.batch_size = value("batch_size", 1);
    l.num_workers = value("num_workers", 5);
    l.pin_memory = value("pin_memory", 7);
    l.persistent_workers = value("persistent_workers", 99);
    Node dataset = args.positional.empty() ? keyword(args, "dataset") : args.positional.front();
    if (!null(dataset)) {
      l.dataset_on_device = moves_to_device(dataset) || on_device_names_.count(dotted(dataset)) > 0;
    }
    // The update below sits in `if use_cuda:` when the loader is built under that branch.
    m_.loaders.push_back(std::move(l));
  }

  // What may be a boolean tensor used as an index: a comparison, `.bool()`, a tensor built with
  // `dtype=torch.bool`, a name bound to one of those, or `~` of any of them. A comparison's
  // operands are often not known to be tensors (`labels != -100` of a batch field), so the
  // subscript's receiver, which must be a tensor, decides.
  bool is_mask(Node n, int depth = 0) const {
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

  // ---- after the walk ------------------------------------------------------------------

  // The module and function a call names through this file's imports: `log(...)` after
  // `from .utils import log`, `engine.step(...)` after `import engine` or
  // `from pkg import engine`. Torch and other libraries resolve too; the engine drops what no
  // analysed file defines.
  std::optional<std::pair<std::string, std::string>> imported_target(
      std::string_view callee) const {
    const size_t dot = callee.find('.');
    const auto found = import_by_local_.find(callee.substr(0, dot));
    if (found == import_by_local_.end()) return std::nullopt;
    const Import& imp = m_.imports[found->second];
    if (dot == std::string::npos) {
      if (imp.symbol.empty()) return std::nullopt;  // `import f; f()`: a module is not called
      return std::make_pair(imp.module, imp.symbol);
    }
    std::string module = imp.module;
    if (!imp.symbol.empty()) module += (module.ends_with('.') ? "" : ".") + imp.symbol;
    const size_t last = callee.rfind('.');
    if (last > dot) module += callee.substr(dot, last - dot);
    return std::make_pair(std::move(module), std::string(callee.substr(last + 1)));
  }

  void finish() {
    // Calls that may be of another module's function: `callee` as called, and for a method of
    // a class, the method.
    struct MaybeImported {
      std::string_view callee;
      std::string_view method;  // empty for none
      Span span;
      ScopeId scope;
    };
    std::vector<MaybeImported> maybe_imported;
    // Calls of functions defined in this file, now that every definition is known.
    for (const PendingCall& call : pending_calls_) {
      const std::string self_key =
          call.callee.starts_with("self.")
              ? std::string(call.klass) + "." + std::string(call.callee.substr(5))
              : std::string();
      const std::string_view key = self_key.empty() ? call.callee : std::string_view(self_key);
      if (auto it = function_by_name_.find(key); it != function_by_name_.end()) {
        m_.calls.push_back({it->second, call.span, call.scope});
      } else if (call.loop_data && model_names_.count(call.callee)) {
        m_.events.push_back(
            {StepEventKind::ModelCall, call.span, call.scope, std::string(call.callee)});
      } else {
        maybe_imported.push_back({call.callee, {}, call.span, call.scope});
      }
    }
    for (const PendingCall& call : pending_dotted_calls_)
      maybe_imported.push_back({call.callee, {}, call.span, call.scope});
    for (const PendingMethodCall& call : pending_method_calls_) {
      if (call.klass.find('.') == std::string::npos) {
        auto it = function_by_name_.find(call.klass + "." + call.method);
        if (it != function_by_name_.end()) {
          m_.calls.push_back({it->second, call.span, call.scope});
          continue;
        }
      }
      maybe_imported.push_back({call.klass, call.method, call.span, call.scope});
    }
    for (const PendingFlow& flow : pending_flows_) {
      auto callee = imported_target(flow.callee);
      auto source = callee ? imported_target(flow.source) : std::nullopt;
      if (!source) continue;
      m_.argument_flows.push_back({callee->first, callee->second, flow.position, flow.keyword,
                                   source->first, source->second});
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
    for (const PendingConvert& c : pending_converts_) {
      if (!is_tensor_expr(c.argument)) continue;
      std::string spelling = std::string(text(field(c.call, s_.f_function))) + "(" +
                             std::string(text(c.argument).substr(0, 40)) + ")";
      m_.syncs.push_back(
          {SyncKind::Convert, span(c.call), c.scope, std::move(spelling), c.inside_output});
    }
    std::sort(m_.syncs.begin(), m_.syncs.end(),
              [](const HostSync& a, const HostSync& b) { return a.span.begin < b.span.begin; });
    for (const DeviceMove& move : m_.moves) {
      if (move.target != DeviceTarget::Cpu && model_names_.count(move.receiver)) {
        m_.moved_models.push_back(move.receiver);
      }
    }
    std::sort(m_.moved_models.begin(), m_.moved_models.end());
    m_.moved_models.erase(std::unique(m_.moved_models.begin(), m_.moved_models.end()),
                          m_.moved_models.end());
    for (const PendingInput& p : pending_inputs_) {
      bool model = model_names_.count(p.callee) && !loss_names_.count(p.callee);
      bool loss = loss_names_.count(p.callee) || is_functional_loss(p.callee);
      if (model || loss) m_.unmoved_inputs.push_back(p.input);
    }
    for (auto& [value, acc] : pending_accumulations_) {
      acc.carries_graph = is_graph_expr(value);
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
                    on_device_names_.count(name) > 0;
      model.compiled = compiled_names_.count(name) > 0;
      model.passed_in = passed_in_names_.count(name) > 0 ||
                        (!first_assignment_.count(name) && parameter_names_.count(name) > 0);
      m_.models.push_back(std::move(model));
    }
    for (const ModelDtype& d : model_dtypes_) {
      if (model_names_.count(d.name)) m_.file_level_amp = d.reduced;
    }
    m_.classify();
    // Only a call made per step makes the function it calls per step (the engine links no
    // other), so only those are resolved against the imports.
    for (const MaybeImported& call : maybe_imported) {
      if (!m_.step_context(call.scope).per_step()) continue;
      auto target = imported_target(call.callee);
      if (!target) continue;
      if (!call.method.empty()) target->second.append(".").append(call.method);
      m_.imported_calls.push_back(
          {std::move(target->first), std::move(target->second), call.span, call.scope});
    }
    // Branches and shapes matter only per step and outside an interval guard, where GL105 and
    // GL106 report them; the tensor-ness of the rest is not worked out.
    auto reported = [&](ScopeId scope) {
      const StepContext context = m_.step_context(scope);
      return context.per_step() && !context.interval_guarded;
    };
    for (const auto& [condition, scope] : pending_conditions_) {
      if (reported(scope) && is_tensor_condition(condition))
        m_.tensor_conditions.push_back({span(condition), scope});
    }
    for (const auto& [subscript, scope] : pending_masks_) {
      if (!reported(scope)) continue;
      Node value = field(subscript, s_.f_value);
      if (subscript.named_child_count() != 2 || numpy_names_.count(dotted(value))) continue;
      Node index = field(subscript, s_.f_subscript);
      if (!is_mask(index) || !is_tensor_expr(value)) continue;
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
    for (const auto& [call, scope] : pending_dynamic_) {
      if (!reported(scope) || !is_tensor_expr(receiver_of(call))) continue;
      std::string spelling = ".";
      spelling.append(method_of(call)).append("()");
      m_.dynamic_shapes.push_back({span(call), scope, std::move(spelling)});
    }
    std::sort(
        m_.dynamic_shapes.begin(), m_.dynamic_shapes.end(),
        [](const DynamicShape& a, const DynamicShape& b) { return a.span.begin < b.span.begin; });
    // An accumulator reset in the step loop's body (or deeper) lives for one step only.
    std::erase_if(m_.accumulations, [&](const Accumulation& a) {
      int32_t step = m_.step_context(a.scope).loop;
      for (int32_t reset : a.reset_in) {
        for (ScopeId s = m_.loops[reset].scope; s != kNoScope; s = m_.scopes[s].parent) {
          if (m_.scopes[s].kind == ScopeKind::Loop && m_.scopes[s].index == step) return true;
        }
      }
      return false;
    });
    // Summed over an inner loop and then backpropagated within the same step (per-token losses
    // of one sequence): the graph is consumed every step, not kept across steps.
    std::erase_if(m_.accumulations, [&](const Accumulation& a) {
      if (a.target.find('.') != std::string::npos) return false;
      const Loop& loop = m_.loops[a.loop];
      return std::any_of(backwards_.begin(), backwards_.end(), [&](const Backward& b) {
        return b.function == loop.function && b.function >= 0 && b.span.begin >= loop.span.end &&
               std::find(b.names.begin(), b.names.end(), a.target) != b.names.end() &&
               m_.step_context(b.scope).per_step();
      });
    });
  }
};

}  // namespace

StepModel build_model(std::string_view text, const Inbound& inbound) {
  Builder builder(text, inbound);
  return builder.build();
}

}  // namespace gpulint::python
