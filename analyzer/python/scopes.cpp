// Scopes: classes, functions, loops, branches and guards, `with` regions.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

void Builder::with_scope(ScopeId scope, Node body, int depth) {
  ScopeId saved = scope_;
  scope_ = scope;
  if (!null(body)) visit(body, depth + 1);
  scope_ = saved;
}

ScopeId Builder::new_scope(ScopeKind kind, int32_t index) {
  return m_.add_scope(kind, scope_, index);
}

uint8_t Builder::region_of(Node expr) const {
  std::string name = dotted(is(expr, s_.call) ? field(expr, s_.f_function) : expr);
  std::string_view tail = last_component(name);
  std::string_view t = text(expr);
  if (tail == "no_grad" || tail == "inference_mode") return kRegionNoGrad;
  if (tail == "set_grad_enabled" && t.find("False") != std::string_view::npos) return kRegionNoGrad;
  if (tail == "autocast" || autocast_names_.count(name)) return kRegionAutocast;
  // An unresolved context manager named like autocast counts as AMP (silence over noise).
  if (!name.empty() && (name.find("autocast") != std::string::npos || tail == "amp" ||
                        tail.starts_with("amp_") || tail.ends_with("_amp"))) {
    return kRegionAutocast;
  }
  return kRegionNone;
}

void Builder::on_decorated(Node n, int depth) {
  uint8_t regions = kRegionNone;
  for_each_child(n, [&](Node c) {
    if (is(c, s_.decorator)) regions |= region_of(unparen(c.named_child(0)));
  });
  Node def = field(n, s_.f_definition);
  // `@property def r(self)`: reading `self.r` in the class's methods runs it. A cached property
  // runs once per instance, not per read.
  if (is(def, s_.function_definition) && !class_name_.empty() &&
      m_.scopes[scope_].kind == ScopeKind::Class) {
    for_each_child(n, [&](Node c) {
      if (is(c, s_.decorator) && text(unparen(c.named_child(0))) == "property")
        properties_.add(std::string(class_name_) + "." + std::string(text(field(def, s_.f_name))));
    });
  }
  if (is(def, s_.function_definition)) return on_function(def, depth, regions);
  if (!null(def)) visit(def, depth + 1);
}

// In the body of a class defined at the module's top level.
bool Builder::top_level_class() const {
  const Scope& scope = m_.scopes[scope_];
  return !class_name_.empty() && scope.kind == ScopeKind::Class && scope.parent != kNoScope &&
         m_.scopes[scope.parent].kind == ScopeKind::Module;
}

void Builder::on_class(Node n, int depth) {
  note_comments(n);
  const std::string_view saved_name = class_name_;
  std::string saved_bases = class_bases_;
  Node name = field(n, s_.f_name);
  Node bases = field(n, s_.f_superclasses);
  class_name_ = null(name) ? std::string_view{} : text(name);
  class_bases_ = null(bases) ? "" : std::string(text(bases));
  // `class WeightedTrainer(Trainer)`, `(trl.SFTTrainer)`: a trainer, and not a
  // `TrainerCallback` or a `TrainerState`, whose names only hold the word.
  bool trainer = false;
  if (!null(bases)) {
    for_each_child(bases, [&](Node b) {
      trainer = trainer || last_component(dotted_view(b)).ends_with("Trainer");
    });
  }
  if (trainer) {
    trainer_classes_.emplace(class_name_);
    m_.trainer_subclass = true;
  }
  bool module = class_bases_.find("Module") != std::string::npos ||
                class_bases_.find("Sequential") != std::string::npos;
  // `class ERM(Algorithm)` where `class Algorithm(torch.nn.Module)` came before.
  if (!module && !null(bases) && !module_classes_.empty()) {
    for_each_child(bases,
                   [&](Node b) { module = module || module_classes_.count(dotted_view(b)); });
  }
  if (module) module_classes_.emplace(class_name_);
  with_scope(new_scope(ScopeKind::Class), field(n, s_.f_body), depth);
  class_name_ = saved_name;
  class_bases_ = saved_bases;
}

void Builder::on_function(Node n, int depth, uint8_t regions) {
  note_comments(n);
  Function f;
  Node name = field(n, s_.f_name);
  f.name = null(name) ? "" : std::string(text(name));
  f.span = span(n);
  f.name_span = null(name) ? f.span : span(name);
  bool method = !class_name_.empty() && m_.scopes[scope_].kind == ScopeKind::Class;
  if (method) {
    bool lightning = class_bases_.find("LightningModule") != std::string::npos;
    bool hf_trainer = !lightning && trainer_classes_.count(class_name_);
    f.per_step_hook =
        (lightning && is_lightning_hook(f.name)) || (hf_trainer && is_hf_trainer_hook(f.name));
    f.evaluation_hook = f.per_step_hook && is_evaluation_hook(f.name);
  }
  const int32_t index = static_cast<int32_t>(m_.functions.size());
  ScopeId scope = new_scope(ScopeKind::Function, index);
  m_.scopes[scope].regions = regions;
  f.scope = scope;
  m_.functions.push_back(f);
  std::string key = method ? std::string(class_name_) + "." + f.name : f.name;
  if (m_.scopes[scope_].kind == ScopeKind::Module || method) function_by_name_.emplace(key, index);

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
      note_annotated_instance(id, p);
      // forward()'s inputs are tensors, except options with a literal default
      // (`return_attn=False`) or a type that is no tensor (`max_len: Optional[int] = None`);
      // `labels=None` is a tensor when given.
      Node fallback = field(p, s_.f_value);
      const Node type = field(p, s_.f_type);
      const bool typed_other = !null(type) && !contains_text(type, "Tensor");
      if (forward && m_.functions[index].parameters.size() > 1 && !typed_other &&
          (null(fallback) || is(fallback, s_.none))) {
        tensor_names_.emplace(text(id));
      }
    });
    // A Lightning hook's batch holds tensors, as a loader loop's batch does.
    const std::vector<std::string>& list = m_.functions[index].parameters;
    if (f.per_step_hook && is_lightning_hook(f.name) && list.size() > 1 && list[0] == "self")
      tensor_names_.insert(list[1]);
  }
  if (!method && m_.scopes[scope_].kind == ScopeKind::Module) note_handed_models(index);
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

// `def gen(model: WaveRNN, ...)`: the parameter holds an instance of the class it is annotated
// with, as a name given `WaveRNN(...)` does (its method calls run the class's methods).
void Builder::note_annotated_instance(Node id, Node parameter) {
  if (!is(parameter, s_.typed_parameter) && !is(parameter, s_.typed_default_parameter)) return;
  Node type = field(parameter, s_.f_type);
  Node named = null(type) ? Node{} : type.named_child(0);
  if (!is(named, s_.identifier) && !is(named, s_.attribute)) return;
  const std::string_view klass = dotted_view(named);
  if (klass.empty() || !names_class(klass) || klass.starts_with("torch.") ||
      klass.starts_with("nn."))
    return;
  call_results_[std::string(text(id))] = klass;
}

// `def sample(x, model, ...)` that a caller elsewhere hands its model: the parameter is that
// model, placed by the caller.
void Builder::note_handed_models(int32_t function) {
  const Function& f = m_.functions[function];
  for (const HandedParameter& p : inbound_.handed_parameters) {
    if (p.what != Handed::Model || p.function != f.name) continue;
    for (size_t i = 0; i < f.parameters.size(); ++i) {
      const std::string& name = f.parameters[i];
      if (!p.matches(static_cast<int32_t>(i), name)) continue;
      model_names_.add(name);
      passed_in_names_.add(name);
    }
  }
}

// ---- loops ---------------------------------------------------------------------------
int32_t Builder::begin_loop(Node n, Node header_end) {
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

void Builder::end_loop() {
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

// Links a loop to the loaders its iterable reads.
void Builder::note_iterable(int32_t loop, Node iterable) {
  std::string_view t = text(iterable);
  if (is_module_container_iter(t)) {
    m_.loops[loop].never_step = true;
    return;
  }
  // A loader whose length divides is not iterated: `range(ceil(steps / len(train_loader)))`
  // counts epochs, where `range(len(train_loader))` counts its batches.
  std::vector<std::string_view> names;
  read_names(iterable, names, 0, /*divisors=*/false);
  note_iterated_parameters(loop, names);
  // `for x, y in make_loader(...)`: the loader a function of this file returns.
  if (const Node call = unparen(iterable); is(call, s_.call) && !loader_functions_.empty()) {
    if (auto f = loader_functions_.find(callee_name(call)); f != loader_functions_.end())
      link_loader(loop, f->second);
  }
  // `for name, loader in loaders.items()`: the entries of a dict of loaders, not their batches.
  const Node entries = unparen(iterable);
  const std::string_view view = is(entries, s_.call) ? method_of(entries) : std::string_view{};
  const bool dict_entries = view == "items" || view == "values" || view == "keys";
  for (std::string_view name : names) {
    if (auto result = call_results_.find(name); result != call_results_.end())
      iterated_call_results_.emplace_back(result->second, loop);
    // -1: an iterator of a name that only looks like a loader (`iter(loader)`).
    if (const int32_t* loader = loader_named(name); loader != nullptr && *loader >= 0) {
      link_loader(loop, *loader);
    } else if (loader != nullptr || (!dict_entries && looks_like_loader(name))) {
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

void Builder::on_for(Node n, int depth) {
  note_comments(n);
  Node left = field(n, s_.f_left), right = field(n, s_.f_right);
  if (!null(right)) visit(right, depth + 1);  // the iterable is evaluated once
  int32_t loop = begin_loop(n, right);
  if (!null(right)) note_iterable(loop, right);
  std::vector<std::string_view> targets;
  target_names(left, targets);
  LoopState& state = loop_stack_.back();
  if (is(left, s_.identifier)) state.element = text(left);
  if (!null(right) && !params_.empty() && params_.back().count(root_identifier(right))) {
    for (std::string_view t : targets) state.from_arguments.add(t);
  }
  // `for mod in self.modules():` binds each module of the model in turn (`mod.half()` converts
  // the model a module at a time).
  if (is(left, s_.identifier) && is(unparen(right), s_.call)) {
    const std::string_view method = method_of(unparen(right));
    if (method == "modules" || method == "children") module_names_.add(text(left));
  }
  // `for step in range(n)` / `for i, batch in enumerate(loader)`: the first target counts.
  const bool counted = !null(right) && !targets.empty() &&
                       (contains_text(right, "range(") || contains_text(right, "enumerate("));
  if (counted) {
    counter_names_.add(targets.front());
    tensor_names_.remove(targets.front());
    // The counter a fix may test: `i` of `range(...)` alone, or the first of what
    // `enumerate(...)` is unpacked into (`for b in enumerate(x)` binds a pair).
    // `tqdm(...)` around either is seen through.
    Node iterable = unparen(right);
    if (is(iterable, s_.call) && last_component(callee_name(iterable)) == "tqdm") {
      Node args = field(iterable, s_.f_arguments);
      if (!null(args) && args.named_child_count() > 0) iterable = args.named_child(0);
    }
    const std::string_view made_by =
        is(iterable, s_.call) ? last_component(callee_name(iterable)) : std::string_view();
    const bool unpacked = is(left, s_.pattern_list) || is(left, s_.tuple_pattern);
    if ((unpacked && made_by == "enumerate") ||
        (is(left, s_.identifier) && (made_by == "range" || made_by == "trange")))
      m_.loops[loop].counter = std::string(targets.front());
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    state.bound.add(targets[i]);
    if (m_.loops[loop].iterates_loader && !(counted && i == 0)) {
      state.cpu_batch.add(targets[i]);
      tensor_names_.add(targets[i]);
    }
  }
  if (!m_.loops[loop].iterates_loader && !null(right)) note_host_items(left, unparen(right));
  Node body = field(n, s_.f_body);
  note_runs_once(loop, body);
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

void Builder::on_while(Node n, int depth) {
  note_comments(n);
  Node condition = field(n, s_.f_condition);
  int32_t loop = begin_loop(n, condition);
  ScopeId saved = scope_;
  scope_ = m_.loops[loop].scope;
  if (!null(condition)) visit(condition, depth + 1);  // evaluated every iteration
  if (!null(condition)) note_condition(condition);
  scope_ = saved;
  note_runs_once(loop, field(n, s_.f_body));
  with_scope(m_.loops[loop].scope, field(n, s_.f_body), depth);
  end_loop();
  Node alternative = field(n, s_.f_alternative);
  if (!null(alternative)) visit(alternative, depth + 1);
}

// ---- branches ------------------------------------------------------------------------
Node Builder::last_statement(Node block) const {
  Node last{};
  for (Node c = block.first_child(); !null(c); c = c.next_sibling()) {
    if (c.named() && !is(c, s_.comment)) last = c;
  }
  return last;
}

// Does the block end in a jump out of it (return, continue, break, raise)?
bool Builder::ends_in_exit(Node block) const {
  const Node last = last_statement(block);
  return is(last, s_.return_statement) || is(last, s_.continue_statement) ||
         is(last, s_.break_statement) || is(last, s_.raise_statement);
}

// `if ...: return` (or continue, break, raise) with no else: the rest of the block runs only
// when the condition is false.
bool Builder::is_early_exit(Node n) const {
  Node body = field(n, s_.f_consequence);
  return !null(body) && null(field(n, s_.f_alternative)) && ends_in_exit(body);
}

// A loop whose body always leaves it (`for batch in loader: show(batch); break`) runs once: it
// is no step loop, whatever it calls.
void Builder::note_runs_once(int32_t loop, Node body) {
  if (null(body)) return;
  const Node last = last_statement(body);
  if (is(last, s_.return_statement) || is(last, s_.break_statement) ||
      is(last, s_.raise_statement)) {
    m_.loops[loop].never_step = true;
  }
}

// A block's statements in order; after an early exit on a step counter the rest is guarded.
void Builder::on_block(Node n, int depth) {
  const ScopeId saved = scope_;
  GradSwitch grad;
  for (Node c = n.first_child(); !null(c); c = c.next_sibling()) {
    visit(c, depth + 1);
    switch_grad(c, grad);
    if (!is(c, s_.if_statement)) continue;
    if (guards_the_rest(c, 0)) {
      scope_ = new_scope(ScopeKind::Branch);
      m_.scopes[scope_].guard = Guard::Interval;
    } else if (const std::optional<size_t> parameter = guarding_parameter(c)) {
      scope_ = new_scope(ScopeKind::Branch);  // Data until its callers are known
      parameter_guards_.push_back({function_, *parameter, scope_});
    }
  }
  scope_ = saved;
}

void Builder::on_if(Node n, int depth) {
  note_comments(n);
  Node condition = field(n, s_.f_condition);
  if (!null(condition)) visit(condition, depth + 1);
  if (!null(condition)) note_condition(condition);
  Guard guard = null(condition) ? Guard::Data : classify_guard(condition);
  ScopeId branch = new_scope(ScopeKind::Branch);
  m_.scopes[branch].guard = guard;
  if (guard != Guard::Interval && !null(condition) && contains_text(condition, "%"))
    early_modulo_guards_.emplace_back(branch, condition);
  if (!null(condition) && is_tensor_type_test(condition)) type_tested_.push_back(branch);
  bool cuda_branch = !null(condition) && is_cuda_condition(condition);
  // `if torch.cuda.is_available(): ... else: ...`: which branches run only without CUDA.
  const int availability = null(condition) ? 0 : cuda_availability(condition);
  cuda_branch_stack_.push_back(cuda_branch);
  host_only_ += availability < 0;
  // Under `if isinstance(x, C):`, `x.method()` is C's method, wherever C is defined.
  const auto [narrowed, klass] = null(condition) ? std::pair<std::string_view, std::string_view>{}
                                                 : narrowed_instance(condition);
  std::optional<std::string> before;
  if (!narrowed.empty()) {
    if (auto it = call_results_.find(narrowed); it != call_results_.end()) before = it->second;
    call_results_[std::string(narrowed)] = klass;
  }
  with_scope(branch, field(n, s_.f_consequence), depth);
  if (!narrowed.empty()) {
    if (before)
      call_results_[std::string(narrowed)] = std::move(*before);
    else
      call_results_.remove(narrowed);
  }
  host_only_ -= availability < 0;
  cuda_branch_stack_.pop_back();
  host_only_ += availability > 0;
  // elif / else: the else of a rank guard is a rank branch too (other ranks, every step).
  for_each_child(n, [&](Node c) {
    if (is(c, s_.elif_clause) || is(c, s_.else_clause)) note_comments(c);
    if (is(c, s_.elif_clause)) {
      Node cond = field(c, s_.f_condition);
      if (!null(cond)) visit(cond, depth + 1);
      if (!null(cond)) note_condition(cond);
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
  host_only_ -= availability > 0;
}

bool Builder::is_cuda_condition(Node condition) const {
  std::string_view t = text(condition);
  return t.find("cuda") != std::string_view::npos || t.find("gpu") != std::string_view::npos ||
         t.find("GPU") != std::string_view::npos;
}

namespace {

bool mentions_version(std::string_view condition) {
  std::string lower(condition);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view word :
       {"version", "torch_greater", "torch_ge_", "_torch_ge", "is_torch_", "hasattr(torch"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool Builder::version_guarded(Node n) const {
  for (Node a = n.parent(), below = n; !null(a) && !is(a, s_.function_definition);
       below = a, a = a.parent()) {
    Node condition;
    if (is(a, s_.if_statement) || is(a, s_.elif_clause)) {
      condition = field(a, s_.f_condition);
    } else if (is(a, s_.conditional_expression)) {
      condition = a.named_child(1);
    } else if (is(a, s_.try_statement)) {
      for (Node c = a.first_child(); !null(c); c = c.next_sibling()) {
        if (is(c, s_.except_clause) &&
            (contains_text(c, "ImportError") || contains_text(c, "AttributeError") ||
             contains_text(c, "ModuleNotFoundError"))) {
          return true;
        }
      }
      continue;
    }
    if (!null(condition) && condition != below && mentions_version(text(condition))) return true;
  }
  return false;
}

void Builder::on_try(Node n, int depth) {
  for_each_child(n, [&](Node c) {
    if (is(c, s_.except_clause) || is(c, s_.except_group_clause)) {
      with_scope(new_scope(ScopeKind::Handler), c, depth);
    } else {
      visit(c, depth + 1);
    }
  });
}

// `accelerator.autocast()`, `fabric.autocast()`: the framework's own context, in the precision it
// was configured with (often from a variable), and it scales the loss itself. Torch's are
// reached from a torch import (`torch.autocast`, `amp.autocast` after `from torch import amp`).
bool Builder::frameworks_autocast(std::string_view name) const {
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view root = name.substr(0, dot);
  if (root == "torch") return false;
  const auto found = import_by_local_.find(root);
  if (found == import_by_local_.end()) return true;
  const Import& imp = m_.imports[found->second];
  return !(imp.module == "torch" || imp.module.starts_with("torch."));
}

Autocast Builder::describe_autocast(Node expr, ScopeId body) {
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
  if (!name.ends_with("autocast") || frameworks_autocast(name)) {
    a.dtype = AmpDtype::Unknown;
    return a;
  }
  Node dtype = keyword(args, "dtype");
  if (null(dtype)) {
    a.dtype = args.list_splat || !args.dict_splats.empty() ? AmpDtype::Unknown : AmpDtype::Default;
  } else {
    std::string_view t = text(dtype);
    a.dtype =
        t.find("bfloat16") != std::string_view::npos ? AmpDtype::BFloat16
        : (t.find("float16") != std::string_view::npos || t.find("half") != std::string_view::npos)
            ? AmpDtype::Float16
            : AmpDtype::Unknown;
  }
  return a;
}

void Builder::on_with(Node n, int depth) {
  note_comments(n);
  std::vector<std::pair<Node, bool>> opened;  // (context expression, is autocast)
  uint8_t regions = kRegionNone;
  bool placing = false;
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
      if (!(region & kRegionAutocast) && is(expr, s_.call)) {
        if (const auto device = context_device(expr); device && on_cuda(*device)) {
          placing = true;
          add_move(expr, *device, {}, false);
        }
      }
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
  placing_context_ += placing;
  with_scope(scope, field(n, s_.f_body), depth);
  placing_context_ -= placing;
}

}  // namespace gpulint::python
