#pragma once

// The step model: language-neutral facts a front end extracts from one file, and the queries
// every rule asks of them ("is this call per-step?", "is this loader in a training file?").
// Front ends lower syntax into these facts; rules judge from them alone.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/language.h"
#include "analyzer/core/span.h"

namespace gpulint {

using ScopeId = int32_t;
inline constexpr ScopeId kNoScope = -1;

enum class ScopeKind : uint8_t { Module, Class, Function, Loop, Branch, Handler, With };

// What a branch condition depends on. Interval: a step counter (`step % n == 0`); Rank: the
// process rank (`if rank == 0`), which the main process takes every step; Data: anything else.
enum class Guard : uint8_t { Data, Interval, Rank };

// Regions a `with` block or a decorator opens, as a bit mask.
enum Region : uint8_t {
  kRegionNone = 0,
  kRegionAutocast = 1 << 0,
  kRegionNoGrad = 1 << 1,  // torch.no_grad, inference_mode, set_grad_enabled(False)
};

struct Scope {
  ScopeKind kind = ScopeKind::Module;
  Guard guard = Guard::Data;      // Branch only
  uint8_t regions = kRegionNone;  // With and Function (decorators)
  ScopeId parent = kNoScope;
  int32_t index = -1;  // Function: index into functions; Loop: index into loops
};

enum class LoopKind : uint8_t { Other, Epoch, Training, Evaluation };

struct Loop {
  Span span;
  Span header;               // `for batch in loader:` up to the colon
  ScopeId scope = kNoScope;  // the loop's own scope (its body)
  int32_t function = -1;     // enclosing function, -1 at module level
  bool never_step = false;   // inside forward(), or over a module container
  bool iterates_loader = false;
  std::vector<int32_t> loaders;     // indices of the loaders it iterates
  LoopKind kind = LoopKind::Other;  // decided by StepModel::classify()
  // Evaluation loops of a Python file, for a fix that wraps the loop in a block: the
  // whitespace before the header on its line (when only whitespace is), and the start of every
  // further line of the loop that holds code (not blank, not inside a string).
  std::optional<std::string> indent;
  std::vector<uint32_t> body_lines;
  // A C++ loop whose body is a block with its first statement on a line of its own: where that
  // line starts and the whitespace before the statement (a fix opens the body with a guard).
  std::optional<std::string> body_indent;
  uint32_t body_line = 0;
  // The name a `for` counts steps with: `step` in `for step, b in enumerate(loader)` and in
  // `for step in range(n)`, `i` in C++'s `for (int i = 0; ...)`; empty when it has none.
  std::string counter;
};

struct Function {
  std::string name;
  Span span;
  Span name_span;
  ScopeId scope = kNoScope;             // the function's own scope
  bool per_step_hook = false;           // Lightning training_step, HF Trainer compute_loss, ...
  bool evaluation_hook = false;         // of those, one that runs no backward: validation_step
  std::vector<std::string> parameters;  // in order, `self` included
};

// A call made per step of a function another module defines, as this file's imports name it:
// `log_metrics(...)` after `from .utils import log_metrics`, `engine.step(...)` after
// `import engine`. The engine resolves it against the other files of the run.
struct ImportedCall {
  std::string module;  // as imported: `pkg.utils`, `.utils`
  std::string symbol;  // the function's name there
  Span span;
  ScopeId scope = kNoScope;
  bool scalar_arguments = false;  // every argument is known not to be a tensor
};

// A loop over what an imported function returned: `loader = make_loader(); for b in loader:`.
struct ImportedLoader {
  std::string module;
  std::string symbol;
  int32_t loop = -1;
};

// A parameter that a loop iterates, of a module-level function
// (`def train_one_epoch(model, loader): for batch in loader:`) or of a class's constructor that
// keeps it in an attribute a method's loop reads (`self.data = data`, `next(self.data)`):
// whatever a caller in another module passes there feeds that loop. `callable` is what callers
// call: the function or the class.
struct IteratedParameter {
  std::string callable;
  int32_t position = -1;  // among the call's arguments
  std::string name;
  int32_t loop = -1;
};

// An argument of a call of an imported function that holds what another imported function
// returned: `loaders = build_loaders(); engine.train(model, loaders)`. When the callee iterates
// that parameter in a step loop, the source's loaders feed it; the linker decides.
struct ArgumentFlow {
  std::string callee_module;  // as imported here
  std::string callee;
  int32_t position = -1;  // positional index, or -1 for a keyword argument
  std::string keyword;
  std::string source_module;
  std::string source;

  friend bool operator==(const ArgumentFlow&, const ArgumentFlow&) = default;
};

// What a caller hands an imported function that the callee's own file cannot see.
enum class Handed : uint8_t { Loader, Model };

// A loader or the model of this file handed to an imported function:
// `gen_samples(model, test_loader)`. A loop of the callee over a loader parameter iterates a
// loader, and a model parameter is the model, placed by the caller; the linker tells the
// callee's file.
struct HandedArgument {
  std::string callee_module;  // as imported here
  std::string callee;
  int32_t position = -1;  // positional index, or -1 for a keyword argument
  std::string keyword;
  Handed what = Handed::Loader;
};

// A parameter of a module-level function of this file that a caller elsewhere gives a loader
// or its model.
struct HandedParameter {
  std::string function;
  int32_t position = -1;  // -1 when given by keyword
  std::string keyword;
  Handed what = Handed::Loader;

  // Whether it names the parameter at `index` of the function's list, called `name`.
  bool matches(int32_t index, std::string_view name) const {
    return position >= 0 ? position == index : keyword == name;
  }

  friend auto operator<=>(const HandedParameter&, const HandedParameter&) = default;
};

// A loader option read from another module (`batch_size=config.BATCH_SIZE`) that this file
// could not resolve: the linker looks it up in the module's constants.
struct ImportedConstant {
  std::string module;
  std::string symbol;
  std::string local;  // as spelled here: `config.BATCH_SIZE`
};

// A step loop in another file of the run calls a module-level function of this one.
struct ExternalCaller {
  std::string function;
  int32_t index = -1;         // into functions; the front end resolves `function`
  Location call_site;         // in the caller's file
  std::vector<Location> via;  // from the step loop to `call_site`, when that is in a helper
  bool training = true;       // the caller's step loop trains (else it evaluates)
  bool interval_guarded = false;
  bool every_step = true;
  uint8_t regions = kRegionNone;
  bool scalar_arguments = false;  // every argument is known not to be a tensor

  friend bool operator==(const ExternalCaller&, const ExternalCaller&) = default;
};

// What the other files of a run say about this one, gathered by the engine's linker and
// handed to the front end, which resolves the names.
struct Inbound {
  std::vector<ExternalCaller> callers;
  // This file's calls (by offset, sorted) of functions elsewhere that reach a backward or an
  // optimizer step: `loss_scaler(loss, optimizer)`, `trainer.train_step(batch)`.
  std::vector<uint32_t> training_calls;
  // Callees as spelt here (`dist_util.dev`) that return a device, sorted.
  std::vector<std::string> device_functions;
  // Callees as spelt here that return the first item of what they are called on, sorted.
  std::vector<std::string> unwrapping_functions;
  // Callees as spelt here that return a value on the host (`to_cpu(loss)`), sorted.
  std::vector<std::string> host_functions;
  // Callees as spelt here that return what they build placed on a device, sorted.
  std::vector<std::string> placed_functions;
  std::vector<std::string> loader_functions;       // their returned loader feeds a step loop
  std::vector<HandedParameter> handed_parameters;  // sorted
  bool cuda = false;                               // one of those files runs on a CUDA device
  // Constants of other modules this file reads, by their spelling here.
  std::vector<std::pair<std::string, int64_t>> constants;

  friend bool operator==(const Inbound&, const Inbound&) = default;
};

// A call of a function defined in the same file.
struct Call {
  int32_t callee = -1;
  Span span;
  ScopeId scope = kNoScope;
  bool scalar_arguments = false;  // every argument is known not to be a tensor
};

enum class StepEventKind : uint8_t { Backward, OptimizerStep, ModelCall };

struct StepEvent {
  StepEventKind kind;
  Span span;
  ScopeId scope = kNoScope;
  std::string name;  // ModelCall: the model called (`model`, `self.net`)
  // False for a model called on data made before the loop (`model->forward(input)` timed in a
  // loop): the call happens every iteration, but it makes no loop a step loop.
  bool makes_step = true;
};

// A call that makes the host wait for the device.
enum class SyncKind : uint8_t {
  Item,         // .item()
  ToList,       // .tolist()
  Convert,      // float(t), int(t), bool(t)
  HostCopy,     // .cpu(), .numpy(), .to("cpu")
  Synchronize,  // torch.cuda.synchronize(), stream/event .synchronize()
  EmptyCache,   // torch.cuda.empty_cache()
};

struct HostSync {
  SyncKind kind;
  Span span;  // the offending call, or `.item()` part of a method chain
  ScopeId scope = kNoScope;
  std::string spelling;        // `.item()`, `float(loss)`, `torch.cuda.synchronize()`
  bool inside_output = false;  // an argument of a print/log call
};

enum class OutputKind : uint8_t { Console, Logging, ProgressBar, MetricsWriter };

struct OutputCall {
  OutputKind kind;
  Span span;
  ScopeId scope = kNoScope;
  std::string callee;
  // An output that is a statement of its own beginning its line (so a fix can put it under
  // `if counter % N == 0`): the whitespace before it, and for Python, where the statement must
  // also be alone on its lines and directly in the body of a loop with a counter, the start of
  // each further line of it that holds code.
  std::optional<std::string> indent;
  std::vector<uint32_t> further_lines;
};

// A keyword argument's value as the front end could resolve it.
struct Value {
  enum class State : uint8_t { Absent, Known, Unknown };
  State state = State::Absent;
  int64_t number = 0;  // ints and bools (True = 1)
  bool is_bool = false;
  Span span;  // the argument, when present in the call

  bool absent() const { return state == State::Absent; }
  bool known() const { return state == State::Known; }
};

// A call's argument list as written, so fixes can insert and rename without reading source.
struct Argument {
  Span span;            // the whole argument, `name=value` included
  std::string keyword;  // `name` of `name=value`; "*" / "**" for unpacking; empty: positional
};
struct ArgumentList {
  bool known = false;  // parenthesised arguments (not a lone generator, not a missing list)
  Span parens;         // `(` through `)`
  std::vector<Argument> items;
  Span trailing_comma;  // a comma after the last argument; empty when there is none

  // The edit that makes `argument` (`name=value`) the last argument, in the list's own style.
  std::optional<Edit> append(std::string_view argument) const;
  // True when every argument is a keyword or `**` (or there is none).
  bool only_keywords() const;
};

struct Loader {
  Span call;             // the whole constructor call
  std::string spelling;  // `DataLoader`, `torch::data::DataLoaderOptions`
  ArgumentList arguments;
  ScopeId scope = kNoScope;
  Value num_workers;
  Value pin_memory;
  Value batch_size;
  Value persistent_workers;
  bool splat_unknown = false;  // *args or an unresolvable **kwargs: absent means unknown
  // Uses the front end could trace.
  bool iterated = false;  // in some loop (see Loop::loaders)
  bool handed_to_trainer = false;
  bool returned_from_hook = false;  // a Lightning *_dataloader hook
  bool read_once = false;           // next(iter(loader)) outside loops
  bool dataset_on_device = false;
  bool batch_sampler = false;  // batch_sampler= given: batch_size does not apply
  // batch_size=1 and a collate_fn that returns the one item: the dataset's items are batches.
  bool items_are_batches = false;
  bool feeds_step_loop_elsewhere = false;  // returned to another file's step loop
};

// Other: an accelerator that is not CUDA (MPS, XLA, `meta`): no CUDA work to wait for.
enum class DeviceTarget : uint8_t { Cpu, Cuda, MaybeCuda, Other };
inline bool on_cuda(DeviceTarget t) {
  return t == DeviceTarget::Cuda || t == DeviceTarget::MaybeCuda;
}

// `x.to(device)`, `x.cuda()`, `device="cuda"`: evidence of where work runs.
struct DeviceMove {
  Span span;
  ScopeId scope = kNoScope;
  DeviceTarget target = DeviceTarget::MaybeCuda;
  std::string receiver;  // the moved name, when it is a plain name or self.attr
  bool non_blocking = false;
};

// `torch.zeros(n).cuda()`: a fill factory whose result is moved right away.
struct FactoryMove {
  Span span;     // the whole chained expression
  Span factory;  // `torch.zeros(n)`
  ArgumentList factory_args;
  Span move;                 // `.cuda()` / `.to(device)` including the dot
  std::string factory_name;  // `torch.zeros`
  std::string device;        // the device expression to pass as device=
  ScopeId scope = kNoScope;
};

// An argument of a model or loss call that comes straight from a loader batch with no
// `.to(...)` on the way.
struct UnmovedInput {
  Span span;
  ScopeId scope = kNoScope;
  int32_t loop = -1;
  std::string name;
  std::string model;
  bool into_loss = false;        // the callee is a loss, not the model
  bool others_moved = false;     // the loop moves other parts of the same batch by hand
  bool moved_elsewhere = false;  // the loop moves this part elsewhere: a tensor, then
};

// A notable API use a rule judges on its own: one fact type, many kinds, so front ends of
// every language fill the same list.
enum class ApiKind : uint8_t {
  DataParallel,          // nn.DataParallel(...), nn.parallel.data_parallel(...)
  DeprecatedAmp,         // torch.cuda.amp.autocast / GradScaler, torch.cpu.amp.*
  GradScaler,            // a GradScaler construction, or `scaler.scale(loss)` with one passed in
  DetectAnomaly,         // set_detect_anomaly(True), `with detect_anomaly()`
  AutogradProfiler,      // `with torch.autograd.profiler.profile()` / `emit_nvtx()`; see body
  LaunchBlocking,        // os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
  ZeroGradKeep,          // zero_grad(set_to_none=False)
  ForeachDisabled,       // an optimizer constructed with foreach=False
  FindUnusedParameters,  // DistributedDataParallel(..., find_unused_parameters=True)
  Tf32Disabled,          // allow_tf32 = False, set_float32_matmul_precision("highest")
  Tf32Enabled,           // allow_tf32 = True, set_float32_matmul_precision("high" | "medium")
  Compile,               // torch.compile(model), model.compile()
  ManualParamUpdate,     // `for p in model.parameters(): p.data.add_(...)`; span: the loop header
};

struct ApiUse {
  ApiKind kind;
  Span span;                 // the call, statement or loop header
  ScopeId scope = kNoScope;  // where it runs
  ScopeId body = kNoScope;   // a `with` region's body, when it opens one
  std::string spelling;      // `torch.cuda.amp.autocast`
  Span callee;               // the callee expression, for fixes that rename it
  std::string written;       // the callee as written, when a dotted name
  ArgumentList arguments;
  Span value;           // the offending argument's value (`False` in set_to_none=False)
  std::string subject;  // Compile: the model name
  // DeprecatedAmp: in a branch chosen by the torch version, the fallback for an old torch.
  bool version_guarded = false;
  // Debugging switches: under a condition on a debugging option (`if args.debug:`).
  bool debug_guarded = false;
};

enum class AmpDtype : uint8_t { Default, BFloat16, Float16, Unknown };

// An autocast region (`with torch.autocast(...)`), with what it runs in.
struct Autocast {
  Span span;  // the context expression
  ScopeId scope = kNoScope;
  ScopeId body = kNoScope;
  AmpDtype dtype = AmpDtype::Default;  // Default: float16 on CUDA
  bool cpu = false;                    // device_type "cpu": not CUDA AMP
};

// Python control flow on a tensor's value: `if loss > 0:`, `while (x != 0).any():`.
struct TensorCondition {
  Span span;
  ScopeId scope = kNoScope;
  std::string written;  // the condition as written, for messages
};

// An op whose output size depends on data: nonzero, boolean-mask indexing, unique, ...
struct DynamicShape {
  Span span;
  ScopeId scope = kNoScope;
  std::string spelling;
};

// A loader batch moved to the device inside the loop that iterates the loader.
struct BatchMove {
  Span span;
  ScopeId scope = kNoScope;
  int32_t loop = -1;
  bool non_blocking = false;
};

// `total += loss` / `losses.append(loss)` of a tensor into something that outlives the step.
struct Accumulation {
  Span span;
  Span value;  // `loss`
  ScopeId scope = kNoScope;
  int32_t loop = -1;
  std::string target;
  std::string value_name;         // the value as written (the first 60 bytes)
  bool value_primary = true;      // takes `.detach()` without parentheses (`loss`, `f(x)`, `x[0]`)
  bool carries_graph = false;     // the value comes from the model or the loss, not detached
  std::vector<int32_t> reset_in;  // loops whose body rebinds the target before this
  // The target is bound afresh in the accumulation's function, before the loops it has there
  // (`lcls = torch.zeros(1)` at the top of a helper): it lives for one call.
  bool bound_per_call = false;
};

// A literal integer argument: its position among the positional ones, or its keyword.
struct LiteralArgument {
  int64_t value = 0;
  Span span;
  int32_t position = -1;  // -1 for a keyword argument
  std::string keyword;
};

// `nn.Linear(4095, 512)`: an nn.Module constructed in code.
struct ModuleConstruction {
  Span span;
  ScopeId scope = kNoScope;
  std::string spelling;               // `nn.Linear`
  bool in_forward = false;            // inside an nn.Module's forward()
  bool has_parameters = true;         // not ReLU, Dropout, a loss, ...
  std::vector<LiteralArgument> dims;  // literal integer arguments, in order
};

// A name the front end believes is the trained model.
struct Model {
  std::string name;
  Span defined;           // its first assignment
  bool moved = false;     // .to(device) / .cuda() / accelerator.prepare / framework trainer
  bool compiled = false;  // torch.compile(model) / model.compile()
  // A function parameter, or bound from one (`self.model = model`): the caller places it.
  bool passed_in = false;
};

// GL304: a dependency file that pins a CPU-only torch build.
struct CpuTorchPin {
  Span span;
  std::string spelling;
};

// `import engine`, `from .utils import log_metrics as log`: what a local name refers to.
struct Import {
  std::string local;   // the name bound in this file
  std::string module;  // `pkg.utils` (relative imports keep their leading dots: `.utils`)
  std::string symbol;  // empty for `import module`
  Span span;
};

struct Comment {
  Span span;
  bool own_line = false;  // nothing but whitespace before it on its line
};

struct ParseError {
  Span span;
  std::string message;
  // False for what tree-sitter-cpp could not read in C++ it parses without a compiler: macros
  // it cannot expand, brace-initialised default arguments. Such code compiles; GL000 stays
  // silent on it, and the run's note counts the files.
  bool in_source = true;
};

// Where a step loop reaches a scope, as rules need it.
struct StepContext {
  int32_t loop = -1;           // the innermost step loop; -1: not per-step
  bool hook = false;           // reached through a per-step framework hook instead of a loop
  bool training_hook = false;  // that hook trains (training_step), not evaluates
  bool interval_guarded = false;
  bool every_step = false;        // under no branch but rank branches
  uint8_t regions = kRegionNone;  // regions between the scope and the step loop
  std::vector<Span> via;          // call sites from the step loop inwards, when in a helper
  uint32_t via_elided = 0;        // call sites left out of via after its first kViaOuter
  const ExternalCaller* external = nullptr;  // the step loop is in another file

  // A chain of calls longer than kViaMax keeps its kViaOuter outermost and its innermost call
  // sites: each helper's context is kept, so a chain held whole costs its depth squared.
  static constexpr size_t kViaMax = 12, kViaOuter = 6;
  void add_via(Span call_site) {
    if (via.size() == kViaMax) {
      via.erase(via.begin() + kViaOuter);
      ++via_elided;
    }
    via.push_back(call_site);
  }

  bool per_step() const { return loop >= 0 || hook || external != nullptr; }
  // Per step and not every N steps: where per-step costs are reported (see
  // StepModel::unguarded_per_step).
  bool unguarded_per_step() const { return per_step() && !interval_guarded; }
};

class StepModel {
 public:
  // Facts, filled by a front end.
  std::vector<Scope> scopes;
  std::vector<Loop> loops;
  std::vector<Function> functions;
  std::vector<Call> calls;
  std::vector<StepEvent> events;
  std::vector<HostSync> syncs;
  std::vector<OutputCall> outputs;
  std::vector<Loader> loaders;
  std::vector<DeviceMove> moves;
  std::vector<FactoryMove> factory_moves;
  std::vector<UnmovedInput> unmoved_inputs;
  std::vector<std::string> moved_models;  // model names moved to a device that may be CUDA
  // Models frozen with `requires_grad_(False)`: their calls record no graph. Sorted.
  std::vector<std::string> frozen_models;
  std::vector<ApiUse> api_uses;
  std::vector<Autocast> autocasts;
  std::vector<TensorCondition> tensor_conditions;
  std::vector<DynamicShape> dynamic_shapes;
  std::vector<BatchMove> batch_moves;
  std::vector<Accumulation> accumulations;
  std::vector<ModuleConstruction> modules;
  std::vector<Model> models;
  std::vector<CpuTorchPin> cpu_torch_pins;
  std::vector<Import> imports;
  std::vector<ImportedCall> imported_calls;  // made per step
  std::vector<ImportedCall> probe_calls;     // the others (Links::Probe)
  std::vector<ImportedLoader> imported_loaders;
  std::vector<ImportedConstant> imported_constants;
  // What this file offers the files that import it: its functions (`f`, `Class.method`) that
  // reach a backward or optimizer step, and those that return a device; sorted.
  // A unit test or its fixtures (by path): loaders and loops there are not training code.
  bool test_code = false;
  std::vector<std::string> training_functions;
  std::vector<std::string> device_functions;
  // Calls of imported functions whose result is used as a device (`.to(dist_util.dev())`).
  std::vector<ImportedConstant> device_calls;
  // Its functions and classes that, called on a list, return the list's first item (`def
  // collate(items): return items[0]`, or a class's `__call__` doing so): a loader of batch
  // size 1 given one as `collate_fn` yields what its dataset's items are, whole batches.
  std::vector<std::string> unwrapping_functions;
  // Imported callables given as a loader's `collate_fn` (directly, or through an instance).
  std::vector<ImportedConstant> collate_calls;
  // Its module-level functions whose every return is on the host (`def to_cpu(t): return
  // t.detach().cpu()`), sorted; and the imported calls whose result is read as a number
  // (`to_cpu(loss).item()`), which a host value makes free.
  std::vector<std::string> host_functions;
  std::vector<ImportedConstant> host_calls;
  // Its module-level functions that return a model placed on a device (`def load_model(): ...;
  // model = Darknet(cfg).to(device); ...; return model`), sorted; and the imported calls that
  // made a model this file never moves itself (`model = load_model(path)`).
  std::vector<std::string> placed_functions;
  std::vector<ImportedConstant> model_calls;
  std::vector<IteratedParameter> iterated_parameters;
  std::vector<ArgumentFlow> argument_flows;
  std::vector<HandedArgument> handed_arguments;
  std::vector<std::pair<std::string, int64_t>> constants;  // module-level NAME = integer
  std::vector<ExternalCaller> external_callers;            // resolved; their `index` is valid
  bool cuda_elsewhere = false;  // a CUDA file of the run runs this one's step code or loaders
  std::vector<Span> autocast_regions_outside_loops;
  std::vector<Comment> comments;
  std::vector<ParseError> parse_errors;
  bool file_level_amp = false;  // Accelerator(mixed_precision=...), model.half(), ...
  bool framework_gpu = false;   // Lightning / accelerate / HF Trainer on a GPU
  // A Hugging Face Trainer subclass is defined: its hooks run in the Trainer's loop, on the GPU
  // when there is one, wherever the Trainer is built (its precision is known only there).
  bool trainer_subclass = false;
  // The source language, for the few fixes whose spelling differs (`num_workers=4` against
  // `.workers(4)`); rules judge from the facts alone.
  Language language = Language::Python;

  ScopeId add_scope(ScopeKind kind, ScopeId parent, int32_t index = -1);

  // Decides every loop's kind from the events and the call graph. Call once, after filling.
  void classify();

  StepContext step_context(ScopeId scope) const;
  // Does code in `scope` run every step, outside an interval guard? The per-step rules (GL1xx,
  // GL503, GL504's outer loop) report only there, and front ends work out their costly facts (does
  // this condition read a tensor? is this subscript a mask?) only where this holds. Valid after
  // classify(); a front end asks it once its own facts are in.
  bool unguarded_per_step(ScopeId scope) const { return step_context(scope).unguarded_per_step(); }
  bool cuda_context() const;
  bool has_training_loop() const;
  // After classify(): does the function reach a backward or optimizer step outside its loops?
  bool reaches_backward(int32_t function) const;
  // A loader that feeds a step loop, a framework trainer or a hook (RULES.md "loader in a
  // training file").
  bool loader_in_training_file(const Loader& loader) const;
  // Innermost training step loops: no other training step loop nested inside.
  std::vector<int32_t> innermost_training_loops() const;
  // True when autocast covers the loop's forward pass (or the file enables AMP otherwise).
  bool amp_in_effect(int32_t loop) const;
  // After classify(): does the loop reach a backward or a model call, in its body or through
  // the functions it calls? A loop that only steps optimizers does not.
  bool runs_forward(int32_t loop) const { return loop_forward_[loop] != 0; }
  // The loop whose forward pass a step loop's step belongs to: itself when it runs one, else the
  // nearest enclosing loop of its function that does (`for opt in optimizers: opt.step()` inside
  // the step loop); -1 when neither does.
  int32_t forward_loop(int32_t loop) const;
  // True when the loop runs more than once per program: it sits in another loop, or its
  // function is called from inside a loop (an epoch loop around a train-one-epoch helper).
  bool repeated(int32_t loop) const;
  // Step events of a kind whose innermost step loop is `loop`.
  std::vector<const StepEvent*> events_in(int32_t loop, StepEventKind kind) const;
  // Regions around a scope all the way out, through any call site of enclosing functions.
  uint8_t enclosing_regions(ScopeId scope) const;
  // The function a scope is in (its own, or the nearest enclosing one); -1 at module level.
  int32_t function_of(ScopeId scope) const;

 private:
  struct FunctionFacts {
    bool direct_backward = false;  // a backward/optimizer step reached outside any loop
    bool direct_event = false;     // any step event reached outside any loop
    bool direct_forward = false;   // a backward or model call reached outside any loop
    bool has_step_loop = false;
  };
  std::vector<FunctionFacts> function_facts_;
  std::vector<std::vector<int32_t>> calls_of_;  // callee -> indices into calls
  mutable std::vector<std::optional<StepContext>> function_context_;
  mutable std::vector<uint8_t> function_context_busy_;
  mutable std::vector<int16_t> function_regions_;  // -1: not computed yet; -2: in progress
  // How many callers deep context_of_function and enclosing_regions are, while they recurse.
  static constexpr uint32_t kMaxCallerDepth = 1000;
  mutable uint32_t caller_depth_ = 0;
  std::vector<uint8_t> loop_amp_;
  std::vector<uint8_t> loop_forward_;
  std::vector<uint8_t> loader_feeds_step_loop_;  // iterated by a training or evaluation loop

  int32_t nearest_loop(ScopeId scope, int32_t* function) const;
  bool interval_guarded_in_loop(ScopeId scope) const;
  StepContext context_of_function(int32_t function) const;
  bool is_step(int32_t loop) const;
};

}  // namespace gpulint
