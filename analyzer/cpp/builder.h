// The state of one lowering of a C++ file into the step model, shared by the files that each
// handle one concern of the walk: syntax helpers (syntax.cpp), the walk, functions and what
// follows it (front_end.cpp), loops, macro loops and guards (loops.cpp), declarations and
// values (values.cpp), and calls and API recognition (calls.cpp). Internal to the C++ front
// end.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzer/core/step_model.h"
#include "analyzer/cpp/names.h"
#include "analyzer/cpp/resolver.h"

namespace gpulint::cpp {

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

  StepModel build();

 private:
  std::string_view src_;
  const Resolution* resolution_;  // Clang's names for calls; null on the syntax-only path
  // The file names LibTorch somewhere (`torch::`, `at::`, an include): otherwise its
  // `net.forward(...)` is another library's (OpenCV's `cv::dnn::Net`), not a model's.
  const bool libtorch_;
  StepModel m_;

  static bool mentions_libtorch(std::string_view src);
  ScopeId scope_ = kNoScope;
  int32_t function_ = -1;
  bool in_forward_ = false;
  bool in_module_method_ = false;               // forward() or another method of a module class
  std::unordered_set<std::string> cpu_fields_;  // settings fields that only ever hold the CPU
  std::unordered_set<std::string> host_names_;  // tensors last assigned a copy on the host
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

  const std::string* resolved(TSNode call) const;
  std::string_view text(TSNode n) const;
  static Span span(TSNode n);
  static bool null(TSNode n) { return ts_node_is_null(n); }
  static bool is(TSNode n, std::string_view type);
  static TSNode field(TSNode n, const char* name);
  static uint32_t named_count(TSNode n);
  static TSNode named(TSNode n, uint32_t i) { return ts_node_named_child(n, i); }
  static ArgumentList argument_list(TSNode list);
  std::string compact(TSNode n) const;
  TSNode unparen(TSNode n) const;
  std::string callee_name(TSNode function) const;
  std::string_view method_name(TSNode function) const;
  std::string root_name(TSNode n, int depth = 0) const;
  void add_pending_call(const std::string& callee, TSNode call, TSNode args, uint32_t argc);
  bool contains(TSNode n, std::string_view needle) const;
  static bool mentions_cuda(std::string_view s);
  static bool mentions_cpu(std::string_view s);
  std::optional<DeviceTarget> device_of(TSNode arg) const;
  void on_field_declaration(TSNode n);
  bool member_assigned(std::string_view name) const;
  int32_t current_loop() const { return loop_stack_.empty() ? -1 : loop_stack_.back().loop; }
  ScopeId open(ScopeKind kind, int32_t index = -1);
  bool in_macro_loop_header(uint32_t offset) const;
  void note_first_error(TSNode root);

  // ---- the walk --------------------------------------------------------------------------

  void visit_children(TSNode n, int depth);
  void visit_block(TSNode n, int depth);
  uint8_t region_opened_by(TSNode stmt) const;
  void visit(TSNode n, int depth);
  void on_comment(TSNode n);
  void with_branch(TSNode body, Guard guard, int depth);

  // ---- functions ----------------------------------------------------------------------

  std::string function_name(TSNode declarator, int depth = 0) const;
  void note_parameters(const std::string& function, TSNode declarator);
  void on_function(TSNode n, int depth);
  bool is_module_method(TSNode function) const;

  // ---- loops and branches ---------------------------------------------------------------

  LoopState open_loop(Span whole, Span header);
  void on_loop(TSNode n, int depth);
  void note_body_line(Loop& loop, TSNode first) const;
  bool is_integer_type(TSNode type) const;
  void note_iterable(int32_t loop, TSNode right, TSNode declarator, LoopState& state);
  void note_iterated(int32_t loop, const std::string& name, std::vector<std::string> bound,
                     LoopState& state);
  const MacroLoop* macro_loop(TSNode block) const;
  const MacroLoop* macro_loop_statement(TSNode n) const;
  void on_macro_loop(TSNode body, const MacroLoop& info, int depth);
  void binding_names(TSNode n, std::vector<std::string>& out, int depth = 0) const;
  std::optional<bool> constant_condition(TSNode condition) const;
  void on_if(TSNode n, int depth);
  Guard classify_guard(TSNode condition) const;
  bool mentions_counter(TSNode n, int depth) const;
  void note_counter(TSNode n);

  // ---- declarations and assignments --------------------------------------------------

  std::string declared_name(TSNode declarator) const;
  void on_declaration(TSNode n, int depth);
  void note_parts(const std::string& holder, TSNode value, int depth);
  void note_part_arguments(const std::string& holder, TSNode args, int depth);
  void on_binding(TSNode decl, const std::string& name, const std::string& type, TSNode value,
                  TSNode args);
  void note_parameters_owner(std::string_view init);
  bool is_graph_expr(TSNode n, int depth = 0) const;
  bool reads_cpu_batch(TSNode value) const;
  bool takes_loop_data(TSNode args) const;
  bool copies_to_host(std::string_view expr) const;
  bool on_host(TSNode receiver) const;
  void on_assignment(TSNode n, int depth);
  void note_accumulation(TSNode n, const std::string& target, TSNode value);

  // ---- expressions ---------------------------------------------------------------------

  void note_output_statement(TSNode n);
  void on_binary(TSNode n, int depth);
  void on_call(TSNode n, int depth);
  void on_method_call(TSNode n, TSNode function, std::string_view method, TSNode args, int depth,
                      const std::string* resolved_name);
  void on_module_method(TSNode n, TSNode function, std::string_view method, TSNode args, int depth);
  void on_move(TSNode n, TSNode function, DeviceTarget target, std::string device,
               bool non_blocking);
  void note_model_inputs(TSNode args, const std::string& model);
  void add_sync(TSNode n, SyncKind kind, std::string spelling);
  Span sync_span(TSNode call) const;
  void add_api(ApiKind kind, TSNode n, std::string spelling);
  void add_module(TSNode n, const std::string& klass, TSNode args);

  // ---- loaders -------------------------------------------------------------------------

  std::unordered_map<uint32_t, int32_t> loader_of_call_;  // call start byte -> loader
  int32_t add_loader(TSNode call, TSNode callee, TSNode args);
  std::optional<int64_t> integer(TSNode v) const;
  Value value_of(TSNode v) const;
  void set_option(Loader& l, std::string_view option, TSNode v);
  int32_t note_options_chain(TSNode constructor);
  void on_make_data_loader(TSNode n, TSNode args);

  // ---- the end -------------------------------------------------------------------------

  void finish();
  std::vector<int32_t> functions_called(const PendingCall& call) const;
  int32_t function_named_at(uint32_t offset) const;
  void note_models_passed_in();
  bool moved_model(const std::string& name, const std::unordered_set<std::string>& moved,
                   int depth) const;
};
}  // namespace gpulint::cpp
