// The state of one lowering of a Python file into the step model, shared by the files that
// each handle one concern of the walk: syntax helpers (syntax.cpp), the walk and what follows it
// (front_end.cpp), imports and module resolution (imports.cpp), scopes, loops and guards
// (scopes.cpp), values (values.cpp), autograd graphs (autograd.cpp), conditions and masks
// (conditions.cpp), calls and API
// recognition (calls.cpp), and loaders and framework hooks (loaders.cpp). Internal to the
// Python front end.
#pragma once

#include <tree_sitter/api.h>

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/core/name_table.h"
#include "analyzer/core/small_vector.h"
#include "analyzer/core/step_model.h"
#include "analyzer/flat_tree.h"
#include "analyzer/python/front_end.h"

namespace gpulint::python {

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
  TSSymbol assignment, augmented_assignment, return_statement, yield, comment, argument_list;
  TSSymbol string, integer, float_, true_, false_, subscript, binary_operator, comparison_operator;
  TSSymbol boolean_operator, not_operator, unary_operator, parenthesized_expression;
  TSSymbol dictionary, pair, dictionary_splat, list_splat, conditional_expression, lambda;
  TSSymbol pattern_list, tuple_pattern, expression_list, tuple, list_pattern, list;
  TSSymbol generator_expression, for_in_clause, typed_parameter, default_parameter,
      typed_default_parameter;
  TSSymbol block, expression_statement, concatenated_string, none, import_statement,
      import_from_statement;
  TSSymbol aliased_import, dotted_name, relative_import, wildcard_import;
  TSSymbol break_statement, continue_statement, raise_statement;
  TSFieldId f_body, f_name, f_superclasses, f_left, f_right, f_condition, f_consequence;
  TSFieldId f_alternative, f_value, f_function, f_arguments, f_object, f_attribute, f_parameters;
  TSFieldId f_definition, f_operator, f_argument, f_key, f_alias, f_module_name, f_subscript;
  TSFieldId f_type;

  explicit Symbols(const TSLanguage* lang);
};

// The Python grammar's symbols and fields, looked up once.
const Symbols& symbols();

// Where a name's value came from, as far as the front end cares.
struct DeviceName {
  DeviceTarget target = DeviceTarget::MaybeCuda;
};

struct LoopState {
  int32_t loop = -1;
  int32_t function = -1;
  NameSet bound;           // names bound in the loop body so far
  NameSet cpu_batch;       // names holding loader batches not yet moved
  NameSet moved_batch;     // parts of the batch moved so far (`x.to(device)`): tensors
  NameSet from_arguments;  // bound from what the function was passed (`for k, v in kwargs.items()`)
  std::string_view element;  // the one name a `for` binds (`opt` of `for opt in optimizers`)
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
  bool scalar_arguments = false;  // every argument is known not to be a tensor
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

// `gen_samples(model, test_loader)`: a loader or a model handed to a function, maybe imported
// (a model unless, once the whole file is read, the name turns out to hold a loss).
struct PendingArgument {
  std::string callee;
  int32_t position;
  std::string keyword;
  Handed what;
  std::string name;
};

// `logger.update(...)` with `logger = MetricLogger(...)`: a method of a class, maybe imported.
struct PendingMethodCall {
  std::string klass;  // the constructor as called: `MetricLogger`, `utils.MetricLogger`
  std::string method;
  Span span;
  ScopeId scope;
  bool scalar_arguments = false;  // every argument is known not to be a tensor
};

struct PendingInput {
  std::string callee;
  UnmovedInput input;
};

// `helper(loss)` with `loss` a tensor where the call stands: the helper's parameter at that
// position holds a tensor for this caller.
struct TensorArgument {
  std::string_view callee;  // `helper` or `self.method`
  std::string_view klass;   // the class the call sits in, for self.method
  size_t position;
};

// A condition on a function's parameter, judged once the file's calls are known.
struct ParameterCondition {
  Node condition;
  ScopeId scope;
  int32_t function;
};

// `if not should_log: return` on a parameter: the rest of the function runs on the steps its
// callers pass a true flag for. Judged once the file's calls are known (GuardArgument).
struct ParameterGuard {
  int32_t function;
  size_t parameter;  // index into Function::parameters
  ScopeId scope;     // the rest of the function's block
};

// What a call of a function of this file passes for one parameter: by position, or by name
// (`position` then npos); `interval` when it is an interval guard (`step % n == 0`, a flag).
struct GuardArgument {
  std::string_view callee, klass;
  size_t position;
  std::string_view name;
  bool interval;
};

struct ModelDtype {
  std::string name;
  bool reduced;
};

class Builder {
 public:
  Builder(std::string_view src, const Inbound& inbound)
      : src_(src), s_(symbols()), inbound_(inbound) {}

  StepModel build(const FlatTree& flat);

 private:
  struct Args {
    SmallVector<Node, 6> positional;
    SmallVector<std::pair<std::string_view, Node>, 6> keywords;
    SmallVector<Node, 2> dict_splats;
    bool list_splat = false;
  };
  // What on_call has already worked out about a call's callee, so it is not worked out again.
  struct Callee {
    std::string_view name, tail, method;
    bool optimizer;  // is_optimizer_constructor(name)
  };
  // Names a `.backward()` reads (`loss` in `(loss / n).backward()`), with its function.
  struct Backward {
    std::vector<std::string_view> names;
    int32_t function;
    Span span;
    ScopeId scope;
  };

  // ---- the file and where the walk is --------------------------------------------------
  std::string_view src_;
  Node root_;  // the file's tree, while build() runs
  const Symbols& s_;
  StepModel m_;
  const Inbound& inbound_;
  ScopeId scope_ = kNoScope;
  ScopeId module_scope_ = kNoScope;
  int32_t function_ = -1;
  std::string_view class_name_;  // into the source
  std::string class_bases_;
  bool in_forward_ = false;
  bool in_output_ = false;
  bool in_raise_ = false;  // in a `raise` statement: runs once, on the way out
  int host_only_ = 0;      // in a branch taken only without CUDA (`else` of `cuda.is_available()`)
  // In `with torch.device("cuda"):` or an init context given a device: what is built is on it.
  int placing_context_ = 0;
  bool reduced_module_ = false;      // a module of this file is cast to half or bfloat16
  bool cuda_by_default_ = false;     // `torch.set_default_device("cuda")`: modules start there
  bool items_to_device_ = false;     // a MONAI `ToDeviced(..., device=cuda)` transform is built
  bool framework_built_ = false;     // an Accelerator, Fabric or Trainer is constructed here
  bool framework_backward_ = false;  // `accelerator.backward(loss)`, `fabric.backward(loss)`
  int call_depth_ = 0;
  std::vector<LoopState> loop_stack_;
  std::vector<NameSet> params_;                  // per open function
  std::vector<bool> cuda_branch_stack_;          // per open branch: is it taken when CUDA is in use
  std::vector<std::string_view> scratch_names_;  // reused by per-statement name reads
  mutable std::deque<std::string> interned_;     // names dotted_view had to build; stable addresses

  // ---- what names hold (values.cpp) ----------------------------------------------------
  // `net.eval().requires_grad_(False)`: `net`; frozen for good unless also unfrozen (a GAN's
  // discriminator, frozen for the generator's step and not for its own).
  NameSet frozen_models_, unfrozen_models_;
  bool frozen(std::string_view model) const {
    return frozen_models_.count(model) && !unfrozen_models_.count(model);
  }
  NameSet model_names_, loss_names_, optimizer_names_, tensor_names_, counter_names_,
      autocast_names_, on_device_names_;
  NameSet trainer_classes_, sync_objects_;
  NameSet handed_to_framework_;  // `accelerator.prepare(net, ...)`, `trainer.fit(model)`: placed
  // Functions of this file whose result is already on a device (`return Net().cuda()`), and
  // names moved in place within a function (`net.cuda()`), keyed by derived_key.
  NameSet placed_functions_, moved_in_function_;
  // `net = Net()` after `net.to(device)`: a new instance, on the CPU until it is moved itself
  // (keyed by derived_key). Only names placed before are kept: a model first built and then
  // placed where this file does not see it stays as the whole-file facts say.
  NameSet host_models_;
  // Classes of this file that derive from a Module, and names bound to a module instance
  // (`self.head = nn.Linear(...)`, `self.net = TinySegNet()`): calling one yields a tensor.
  NameSet module_classes_, module_names_;
  // Module classes of this file whose `__init__` makes parameters or buffers of its own (a
  // layer, `nn.Parameter`, `register_buffer`): built from modules already on the device, one
  // still has parts on the host.
  NameSet own_parameter_classes_;
  NameMap<DeviceName> device_names_;
  NameMap<int64_t> constants_;  // NAME = literal at module level, Class.NAME in a class body
  NameMap<std::vector<std::pair<Node, bool>>> dicts_;  // kwargs dicts
  NameMap<std::string> call_results_;                  // `x = f(...)`: x -> f
  NameMap<std::string> instance_functions_;  // `def load(): return Net().cuda()`: load -> Net
  NameSet deprecated_amp_names_, grad_names_, compiled_names_;
  // Given a model's output under no_grad (`with torch.no_grad(): outputs = model(**batch)`):
  // `outputs.loss` read after the block carries no graph either.
  NameSet graphless_names_;
  NameMap<Span> first_assignment_;
  NameSet mask_names_;        // `valid = labels != -100`
  NameSet guard_flags_;       // `is_log = step % n == 0`: an interval guard through a name
  NameSet host_names_;        // tensors made on the host (`torch.from_file(...)`, `x.cpu()`)
  NameSet device_functions_;  // this file's functions (`f`, `Class.f`) that return a device
  NameSet tensor_devices_;    // bound to a tensor's own device: `device = x.device`
  // This file's module-level functions with a return on the host, and with one that may not be.
  NameSet host_returns_, other_returns_;
  NameSet tracker_runs_;  // `run = wandb.init(...)`
  NameSet clock_names_;   // `now = time.time()`
  NameSet parameter_names_, passed_in_names_;
  std::vector<ModelDtype> model_dtypes_;

  // ---- loaders (loaders.cpp) -----------------------------------------------------------
  NameMap<int32_t> loader_names_;       // name -> loader
  NameMap<int32_t> loader_iter_names_;  // it = iter(loader)
  NameMap<int32_t> loader_functions_;   // def f(): return DataLoader
  NameSet properties_;                  // "Class.name" of `@property`s
  // `self.data = data` in `Class.__init__`: "Class:self.data" -> the argument's position in a
  // call of Class, and the parameter's name.
  NameMap<std::pair<int32_t, std::string>> constructor_attributes_;
  // Every loader a name was given in a function (`loader = DataLoader(...)` in each branch).
  std::vector<std::tuple<std::string, int32_t, int32_t>> loader_bindings_;  // name, loader, fn
  NameMap<std::vector<int32_t>> tuple_loader_functions_;  // def f(): return train, val
  std::vector<std::pair<std::string, int32_t>> iterated_call_results_;  // (f, loop)
  // Dataset classes of this file whose __getitem__ returns what it moved to a device, and the
  // loaders built on an instance of a class: (loader, class name).
  NameSet device_datasets_;
  // Functions and classes of this file that return the first item of what they are called on,
  // and the loaders of batch size 1 given a collate_fn that is not a lambda: (loader, callee).
  NameSet unwrapping_functions_;
  std::vector<std::pair<int32_t, std::string>> collates_;
  std::vector<std::pair<int32_t, std::string>> loader_datasets_;

  // ---- imports and calls to resolve once the file is known -----------------------------
  NameMap<size_t> import_by_local_;        // the last import binding each name: m_.imports index
  NameMap<int32_t> function_by_name_;      // `f` or `Class.f`
  std::vector<std::string> star_modules_;  // `from utils import *`, in order
  std::vector<PendingCall> pending_calls_;
  std::vector<PendingCall> pending_dotted_calls_;  // `engine.step(...)`: maybe an imported module
  std::vector<PendingMethodCall> pending_method_calls_;
  std::vector<PendingFlow> pending_flows_;
  std::vector<PendingArgument> pending_arguments_;
  // Judged where they stand, as names then hold: `float(t)` of a tensor, `t.unique()`, `t[mask]`.
  std::vector<PendingConvert> tensor_converts_;
  std::vector<PendingInput> pending_inputs_;
  // Whether the value carries a graph is judged at the end (a `loss.backward()` later in the
  // loop says so), unless the value was known then to come from a no_grad block.
  struct PendingAccumulation {
    Node value;
    Accumulation acc;
    bool graphless = false;
  };
  std::vector<PendingAccumulation> pending_accumulations_;
  // Names computed from an accumulation's target in its function (`loss =
  // torch.stack(log_probs).sum()`), with the target: a backward on them consumes the graphs.
  // Keyed by derived_key(function, name): hashed, as a long file may hold thousands.
  NameSet accumulated_targets_;                        // the targets accumulated into
  NameMap<std::vector<std::string>> derived_targets_;  // a derived name -> its targets
  static std::string derived_key(int32_t function, std::string_view name);
  void note_derived(std::string_view name, Node value);
  std::vector<Backward> backwards_;
  mutable std::vector<ImportedConstant> imported_constants_;  // found while resolving values
  // Conditions on a tensor, judged where they stand (names hold what they held there).
  std::vector<std::pair<Node, ScopeId>> tensor_conditions_;
  std::vector<ParameterCondition> parameter_conditions_;
  std::vector<TensorArgument> tensor_arguments_;
  std::vector<ParameterGuard> parameter_guards_;
  // `if state.cur_nimg % snapshot_nimg == 0:` above the loop's `state.cur_nimg += batch_size`:
  // branches on `%` judged before every counter was known, judged again in finish().
  std::vector<std::pair<ScopeId, Node>> early_modulo_guards_;
  std::vector<GuardArgument> guard_arguments_;
  NameSet scalar_names_;              // hold a number, a string or None: never a tensor
  std::vector<ScopeId> type_tested_;  // branches under `isinstance(x, torch.Tensor)`
  std::vector<std::pair<Node, ScopeId>> dynamic_methods_;
  std::vector<std::pair<Node, ScopeId>> mask_indexings_;
  std::string_view last_mask_;

  // ---- syntax (inline: every handler asks these) ---------------------------------------
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
  // `a.b.c` for attribute chains of identifiers; empty for anything else.
  std::string dotted(Node n) const { return std::string(dotted_view(n)); }
  // The name a call is made on: `model` in `model(x)`, `self.net` in `self.net(x)`.
  std::string_view callee_name(Node call) const { return dotted_view(field(call, s_.f_function)); }
  bool contains_text(Node n, std::string_view needle) const {
    return text(n).find(needle) != std::string_view::npos;
  }

  // ---- syntax.cpp ----------------------------------------------------------------------
  std::string_view dotted_view(Node n) const;
  size_t dotted_parts(Node n, int depth, std::string* out) const;
  std::string_view method_of(Node call) const;
  Node receiver_of(Node call) const;
  std::string_view receiver_name(Node call, std::string_view callee, std::string_view method) const;
  std::string_view root_identifier(Node n) const;
  bool holds_host_batch(Node n) const;
  std::string string_value(Node n) const;
  Node unparen(Node n) const;
  ArgumentList argument_list(Node call) const;
  void target_names(Node n, std::vector<std::string_view>& out, int depth = 0);
  // `divisors`: also the names whose length divides (`loader` in `steps / len(loader)`).
  void read_names(Node n, std::vector<std::string_view>& out, int depth = 0, bool divisors = true);
  bool moves_to_device(Node n) const;
  bool returns_placed(Node value);
  Node under_mode_switches(Node value) const;
  bool call_places(Node call);
  void note_rebound_model(std::string_view name, Node value, bool placed, bool unconditional);
  bool runs_on_host(std::string_view callee) const;
  std::optional<DeviceTarget> context_device(Node call);
  int64_t literal_number(Node n) const;
  bool is_host_copy_call(Node n);
  bool copied_on_the_way(Node n);

  // ---- front_end.cpp: the walk, and what follows it ------------------------------------
  void visit_children(Node n, int depth);
  void note_too_deep(Node n);
  void visit(Node n, int depth);
  void note_first_error(Node n);
  void note_comments(Node n);
  void on_comment(Node n);
  void finish();
  void note_forward_helpers();

  // ---- imports.cpp ---------------------------------------------------------------------
  void on_import(Node n);
  std::optional<std::pair<std::string, std::string>> imported_target(std::string_view callee) const;
  std::optional<int64_t> inbound_constant(const std::string& name) const;

  // ---- scopes.cpp ----------------------------------------------------------------------
  void with_scope(ScopeId scope, Node body, int depth);
  ScopeId new_scope(ScopeKind kind, int32_t index = -1);
  uint8_t region_of(Node expr) const;
  void on_decorated(Node n, int depth);
  bool top_level_class() const;
  void on_class(Node n, int depth);
  void on_function(Node n, int depth, uint8_t regions);
  int32_t begin_loop(Node n, Node header_end);
  void end_loop();
  void note_iterable(int32_t loop, Node iterable);
  int cuda_availability(Node condition) const;
  void note_annotated_instance(Node id, Node parameter);
  void note_handed_models(int32_t function);
  void on_for(Node n, int depth);
  void on_while(Node n, int depth);
  bool is_early_exit(Node if_statement) const;
  bool guards_the_rest(Node if_statement, int depth);
  bool lets_through_guarded_steps(Node block, int depth);
  Node last_statement(Node block) const;
  bool ends_in_exit(Node block) const;
  void note_runs_once(int32_t loop, Node body);
  void on_block(Node n, int depth);
  void on_if(Node n, int depth);
  bool is_cuda_condition(Node condition) const;
  // The node that `span` covers exactly and `kind` names, found from the root down.
  Node node_at(Span span, TSSymbol kind) const;
  // The whitespace before `n` on its line (false when more than whitespace is), and the start of
  // every further line of `n` that holds code (not blank, not inside a string).
  bool line_layout(Node n, std::string& indent, std::vector<uint32_t>& lines) const;
  // Loop::indent and Loop::body_lines of an evaluation loop.
  void note_loop_lines(Loop& loop) const;
  // OutputCall::indent and further_lines, for an output alone on its lines in a counted loop.
  void note_output_lines(OutputCall& out) const;
  // Inside a branch chosen by the installed torch's version (`if TORCH_GE_2_4:`, `x if
  // hasattr(torch, "amp") else y`, a `try:` falling back on ImportError or AttributeError).
  bool version_guarded(Node n) const;
  void on_try(Node n, int depth);
  Autocast describe_autocast(Node expr, ScopeId body);
  bool frameworks_autocast(std::string_view name) const;
  void on_with(Node n, int depth);

  // ---- values.cpp ----------------------------------------------------------------------
  std::vector<std::pair<Node, Node>> item_parts(Node left, Node iterable);
  void note_host_items(Node left, Node iterable);
  bool comprehension_item_on_host(Node at, std::string_view name);
  bool is_tensor_expr(Node n, int depth = 0) const;
  void bind_device(std::string_view name, DeviceTarget target);
  std::string_view wrapped_instance(Node call, std::string_view tail) const;
  bool made_on_host(Node value) const;
  bool imported_from(std::string_view callee, std::string_view package) const;
  bool on_host(Node n, int depth = 0) const;
  bool returns_host(std::string_view callee) const;
  void note_host_call(Node call);
  bool reads_checkpoint(Node value);
  bool reads_counter_key(Node n, int depth = 0) const;
  bool debug_guarded(Node n) const;
  void on_assignment(Node n, int depth);
  void on_setting(Node left, Node value);
  bool built_on_device(Node call);
  DeviceTarget device_of_choice(Node conditional, int depth = 0) const;
  int32_t function_called(std::string_view callee, std::string_view klass) const;
  bool reads_cpu_batch(Node value, const LoopState& state);
  void on_augmented(Node n, int depth);
  void note_accumulation(Node n, std::string_view target, Node value);
  bool bound_before_loops(Node n, std::string_view name);
  void on_return(Node n, int depth);
  void note_property_read(Node attribute);
  DeviceTarget classify_device(Node n, int depth = 0) const;
  bool is_device_expr(Node n) const;
  bool returns_device(std::string_view callee) const;
  void note_tensor_devices(const std::vector<std::string_view>& names, Node value);
  bool follows_tensor(Node device) const;
  void note_device_call(Node n);
  Value resolve(Node n) const;

  // ---- autograd.cpp --------------------------------------------------------------------
  std::optional<bool> grad_switch(Node statement) const;
  struct GradSwitch {
    ScopeId opened = kNoScope, left = kNoScope;
  };
  void switch_grad(Node statement, GradSwitch& open);
  bool is_graph_expr(Node n, int depth = 0) const;
  void note_requires_grad(Node recv, const Args& args);
  bool under_no_grad() const;
  bool reads_graphless(Node n) const;

  // ---- conditions.cpp ------------------------------------------------------------------
  Guard classify_guard(Node condition);
  Guard classify_exit_guard(Node condition);
  bool is_clock(Node n) const;
  bool throttles_by_time(Node condition) const;
  bool is_tensor_condition(Node n, int depth = 0) const;
  void note_condition(Node condition);
  void judge_parameter_conditions();
  void judge_parameter_guards();
  std::optional<size_t> guarding_parameter(Node if_statement) const;
  bool is_interval_value(Node n);
  void note_precision_setting(Node pair);
  bool in_handler(Node n) const;  // inside an `except` clause of its function
  void note_precision_section(Node key, Node value);
  void on_deepspeed(const Args& args);
  void note_pretrained_precision(const Args& args);
  bool loads_quantized(const Args& args) const;
  bool loads_placed(Node call, std::string_view callee);
  bool is_deepspeed_initialize(std::string_view callee) const;
  bool is_tensor_type_test(Node condition) const;
  // `isinstance(sampler, LossAwareSampler)`: the name and the class it is known to hold.
  std::pair<std::string_view, std::string_view> narrowed_instance(Node condition) const;
  bool is_scalar_expr(Node n, int depth = 0) const;
  bool only_scalars(const Args& args) const;
  void drop_syncs_no_caller_reaches();
  bool is_mask(Node n, int depth = 0) const;
  void note_mask_index(Node subscript);
  bool counts_steps(Node n, bool& counter, int depth = 0) const;

  // ---- calls.cpp -----------------------------------------------------------------------
  Args arguments(Node call);
  static Node keyword(const Args& a, std::string_view name);
  void on_call(Node n, int depth);
  void note_method_of_instance(Node n, std::string_view callee, std::string_view method,
                               bool scalars);
  void note_instance_call(Node n, std::string_view callee, bool scalars);
  void note_flows(std::string_view callee, const Args& args);
  void on_api_call(Node n, const Callee& c, const Args& args);
  void add_api(ApiKind kind, Node n, std::string_view spelling, Node value = Node{});
  bool switched_off(Node value) const;
  bool dynamic_output(std::string_view op, const Args& args, bool as_function) const;
  void dynamic(Node n, const char* spelling);
  static bool is_module_constructor(std::string_view callee);
  void on_module_construction(Node n, std::string_view callee, std::string_view tail,
                              const Args& args);
  bool has_loop_data(const Args& args, std::vector<std::string_view>& names);
  void note_model_inputs(Node call, std::string_view callee, const Args& args);
  bool is_output_call(std::string_view callee, std::string_view method, Node call) const;
  static bool is_console(std::string_view receiver);
  void add_output(Node n, OutputKind kind, std::string_view callee);
  void add_move(Node n, DeviceTarget target, std::string receiver, bool non_blocking);
  void add_sync(Node n, SyncKind kind, std::string spelling);
  void on_method_call(Node n, std::string_view callee, std::string_view method, const Args& args,
                      bool output);
  void note_model_dtype(Node n, std::string_view receiver, const Args& args);
  void note_reduced_dtype(Node n, std::string_view receiver, bool reduced);
  void on_device_move(Node n, Node recv, std::string_view receiver, DeviceTarget target,
                      bool non_blocking, std::string_view device);

  // ---- loaders.cpp ---------------------------------------------------------------------
  void note_iterated_parameters(int32_t loop, const std::vector<std::string_view>& names);
  void on_yield(Node n, int depth);
  const int32_t* loader_named(std::string_view name) const;
  void link_loader(int32_t loop, int32_t loader);
  void on_next(Node arg, bool whole = false);
  void on_framework(Node n, std::string_view tail, const Args& args);
  void hand_to_framework(Node arg);
  bool splat_values(Node splat, std::vector<std::pair<std::string, Node>>& out, int depth = 0);
  void on_loader(Node n, const Args& args);
  void note_dataset_item(Node value);
  void mark_device_datasets();
  bool note_collate(int32_t loader, Node collate);
  bool first_item_of(Node value, std::string_view parameter) const;
  bool wraps_itself(Node call, std::string_view name) const;
  void mark_unwrapping_collates();
};

}  // namespace gpulint::python
