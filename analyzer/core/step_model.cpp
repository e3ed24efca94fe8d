#include "analyzer/core/step_model.h"

#include <algorithm>

namespace gpulint {

namespace {

// One level deeper while it lives.
struct DepthGuard {
  explicit DepthGuard(uint32_t& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  uint32_t& depth_;
};

}  // namespace

// `f()` -> `f(kw)`, `f(a, b)` -> `f(a, b, kw)`, `f(a,\n)` -> `f(a, kw,\n)`: a trailing comma
// stays trailing, and comments after the last argument stay where they are.
std::optional<Edit> ArgumentList::append(std::string_view argument) const {
  if (!known) return std::nullopt;
  if (items.empty()) return Edit{{parens.begin + 1, parens.begin + 1}, std::string(argument)};
  if (trailing_comma.end > trailing_comma.begin) {
    return Edit{{trailing_comma.end, trailing_comma.end}, " " + std::string(argument) + ","};
  }
  const uint32_t end = items.back().span.end;
  return Edit{{end, end}, ", " + std::string(argument)};
}

bool ArgumentList::only_keywords() const {
  return std::all_of(items.begin(), items.end(),
                     [](const Argument& a) { return !a.keyword.empty() && a.keyword != "*"; });
}

ScopeId StepModel::add_scope(ScopeKind kind, ScopeId parent, int32_t index) {
  Scope scope;
  scope.kind = kind;
  scope.parent = parent;
  scope.index = index;
  scopes.push_back(scope);
  return static_cast<ScopeId>(scopes.size() - 1);
}

// The loop a scope sits in directly, not crossing a function boundary. When there is none,
// `*function` is the enclosing function (or -1 at module level).
int32_t StepModel::nearest_loop(ScopeId scope, int32_t* function) const {
  *function = -1;
  for (ScopeId s = scope; s != kNoScope; s = scopes[s].parent) {
    if (scopes[s].kind == ScopeKind::Loop) return scopes[s].index;
    if (scopes[s].kind == ScopeKind::Function) {
      *function = scopes[s].index;
      return -1;
    }
  }
  return -1;
}

// Whether `scope` lies under an interval guard of its nearest loop's body.
bool StepModel::interval_guarded_in_loop(ScopeId scope) const {
  for (ScopeId s = scope; s != kNoScope; s = scopes[s].parent) {
    if (scopes[s].kind == ScopeKind::Loop || scopes[s].kind == ScopeKind::Function) return false;
    if (scopes[s].kind == ScopeKind::Branch && scopes[s].guard == Guard::Interval) return true;
  }
  return false;
}

int32_t StepModel::function_of(ScopeId scope) const {
  for (ScopeId s = scope; s != kNoScope; s = scopes[s].parent) {
    if (scopes[s].kind == ScopeKind::Function) return scopes[s].index;
  }
  return -1;
}

bool StepModel::is_step(int32_t loop) const {
  LoopKind kind = loops[loop].kind;
  return kind == LoopKind::Training || kind == LoopKind::Evaluation;
}

void StepModel::classify() {
  const size_t nf = functions.size();
  function_facts_.assign(nf, {});
  calls_of_.assign(nf, {});
  function_context_.assign(nf, std::nullopt);
  function_context_busy_.assign(nf, 0);
  function_regions_.assign(nf, -1);
  for (size_t i = 0; i < calls.size(); ++i)
    calls_of_[calls[i].callee].push_back(static_cast<int32_t>(i));

  // Step events per loop and per function body (outside its loops).
  std::vector<uint8_t> loop_event(loops.size(), 0), loop_backward(loops.size(), 0);
  loop_forward_.assign(loops.size(), 0);
  for (const StepEvent& event : events) {
    if (!event.makes_step) continue;
    int32_t fn;
    int32_t loop = nearest_loop(event.scope, &fn);
    bool backward = event.kind != StepEventKind::ModelCall;
    bool forward = event.kind != StepEventKind::OptimizerStep;
    if (loop >= 0) {
      // A forward pass the loop runs only every N iterations (`if epoch % eval_every == 0:
      // model(x_val)`) is no step of that loop: it stays an epoch loop.
      if (backward || !interval_guarded_in_loop(event.scope)) loop_event[loop] = 1;
      loop_backward[loop] |= backward;
      loop_forward_[loop] |= forward;
    } else if (fn >= 0) {
      function_facts_[fn].direct_event = true;
      function_facts_[fn].direct_backward |= backward;
      function_facts_[fn].direct_forward |= forward;
    }
  }
  // A function calling, outside its loops, a function with direct events has them too.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Call& call : calls) {
      int32_t fn;
      if (nearest_loop(call.scope, &fn) >= 0 || fn < 0) continue;
      FunctionFacts& caller = function_facts_[fn];
      const FunctionFacts& callee = function_facts_[call.callee];
      if ((callee.direct_event && !caller.direct_event) ||
          (callee.direct_backward && !caller.direct_backward) ||
          (callee.direct_forward && !caller.direct_forward)) {
        caller.direct_event |= callee.direct_event;
        caller.direct_backward |= callee.direct_backward;
        caller.direct_forward |= callee.direct_forward;
        changed = true;
      }
    }
  }
  for (const Call& call : calls) {
    int32_t fn;
    int32_t loop = nearest_loop(call.scope, &fn);
    if (loop < 0) continue;
    const FunctionFacts& callee = function_facts_[call.callee];
    if (callee.direct_backward || !interval_guarded_in_loop(call.scope))
      loop_event[loop] |= callee.direct_event;
    loop_backward[loop] |= callee.direct_backward;
    loop_forward_[loop] |= callee.direct_forward;
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    Loop& loop = loops[i];
    if (loop.never_step || !(loop_event[i] || loop.iterates_loader)) continue;
    // A loop over environments, tasks or chunks in a function that then runs the backward or
    // the optimizer step itself (`for x, y in minibatches: loss += f(model(x), y)`, then
    // `loss.backward()`) is the forward part of one training step, not a step loop of its own.
    if (!loop_backward[i] && !loop.iterates_loader && loop.function >= 0 &&
        function_facts_[loop.function].direct_backward)
      continue;
    loop.kind = loop_backward[i] ? LoopKind::Training : LoopKind::Evaluation;
  }
  // A step loop with a training loop inside it (a test loop that fits a latent per image, an
  // RL rollout whose update runs nested epochs) needs autograd: it is no evaluation loop.
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].kind != LoopKind::Training) continue;
    for (ScopeId s = scopes[loops[i].scope].parent; s != kNoScope; s = scopes[s].parent) {
      if (scopes[s].kind == ScopeKind::Function) break;
      if (scopes[s].kind == ScopeKind::Loop && loops[scopes[s].index].kind == LoopKind::Evaluation)
        loops[scopes[s].index].kind = LoopKind::Training;
    }
  }

  // Epoch loops: not step loops themselves, but a step loop runs inside them.
  for (size_t i = 0; i < loops.size(); ++i) {
    if (!is_step(static_cast<int32_t>(i)) || loops[i].function < 0) continue;
    function_facts_[loops[i].function].has_step_loop = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Call& call : calls) {
      const int32_t fn = function_of(call.scope);
      if (fn >= 0 && function_facts_[call.callee].has_step_loop &&
          !function_facts_[fn].has_step_loop) {
        function_facts_[fn].has_step_loop = changed = true;
      }
    }
  }
  auto mark_epoch_ancestors = [&](ScopeId from) {
    for (ScopeId s = from; s != kNoScope; s = scopes[s].parent) {
      if (scopes[s].kind == ScopeKind::Function) break;
      if (scopes[s].kind == ScopeKind::Loop && loops[scopes[s].index].kind == LoopKind::Other) {
        loops[scopes[s].index].kind = LoopKind::Epoch;
      }
    }
  };
  for (size_t i = 0; i < loops.size(); ++i) {
    if (is_step(static_cast<int32_t>(i))) mark_epoch_ancestors(scopes[loops[i].scope].parent);
  }
  for (const Call& call : calls) {
    if (function_facts_[call.callee].has_step_loop) mark_epoch_ancestors(call.scope);
  }

  // Autocast regions that cover a step loop's forward pass.
  loop_amp_.assign(loops.size(), 0);
  for (size_t s = 0; s < scopes.size(); ++s) {
    if (scopes[s].kind != ScopeKind::With || !(scopes[s].regions & kRegionAutocast)) continue;
    StepContext context = step_context(static_cast<ScopeId>(s));
    if (context.loop >= 0) loop_amp_[context.loop] = 1;
  }

  loader_feeds_step_loop_.assign(loaders.size(), 0);
  for (size_t i = 0; i < loops.size(); ++i) {
    if (!is_step(static_cast<int32_t>(i))) continue;
    for (int32_t loader : loops[i].loaders) loader_feeds_step_loop_[loader] = 1;
  }
}

bool StepModel::reaches_backward(int32_t function) const {
  return function_facts_[function].direct_backward;
}

StepContext StepModel::step_context(ScopeId scope) const {
  bool guarded = false, branch = false;
  uint8_t regions = kRegionNone;
  for (ScopeId s = scope; s != kNoScope; s = scopes[s].parent) {
    const Scope& sc = scopes[s];
    switch (sc.kind) {
      case ScopeKind::Branch:
        if (sc.guard == Guard::Interval) guarded = true;
        if (sc.guard == Guard::Data) branch = true;
        break;
      case ScopeKind::Handler:
        branch = true;
        break;
      case ScopeKind::With:
        regions |= sc.regions;
        break;
      case ScopeKind::Loop:
        if (is_step(sc.index)) {
          StepContext context;
          context.loop = sc.index;
          context.interval_guarded = guarded;
          context.every_step = !guarded && !branch;
          context.regions = regions;
          return context;
        }
        break;
      case ScopeKind::Function: {
        StepContext context = context_of_function(sc.index);
        if (!context.per_step()) return {};
        context.interval_guarded |= guarded;
        context.every_step = context.every_step && !guarded && !branch;
        context.regions |= regions | sc.regions;
        return context;
      }
      case ScopeKind::Class:
      case ScopeKind::Module:
        return {};
    }
  }
  return {};
}

StepContext StepModel::context_of_function(int32_t function) const {
  if (function_context_[function]) return *function_context_[function];
  if (function_context_busy_[function]) return {};  // recursion: the outer call decides
  // A chain of callers deeper than this is not followed (not per-step: unknown stays silent):
  // each level is a frame on the stack, and 40,000 chained methods overflowed it.
  if (caller_depth_ >= kMaxCallerDepth) return {};
  const DepthGuard depth(caller_depth_);
  function_context_busy_[function] = 1;
  StepContext best;
  if (functions[function].per_step_hook) {
    best.hook = true;
    best.training_hook = !functions[function].evaluation_hook;
    best.every_step = true;
  } else {
    auto rank = [](const StepContext& c) {
      return (c.per_step() ? 4 : 0) + (!c.interval_guarded ? 2 : 0) + (c.every_step ? 1 : 0);
    };
    for (int32_t index : calls_of_[function]) {
      const Call& call = calls[index];
      StepContext context = step_context(call.scope);
      if (!context.per_step()) continue;
      context.add_via(call.span);
      if (rank(context) > rank(best)) best = std::move(context);
    }
    for (const ExternalCaller& caller : external_callers) {
      if (caller.index != function) continue;
      StepContext context;
      context.external = &caller;
      context.interval_guarded = caller.interval_guarded;
      context.every_step = caller.every_step;
      context.regions = caller.regions;
      if (rank(context) > rank(best)) best = std::move(context);
    }
  }
  function_context_busy_[function] = 0;
  function_context_[function] = best;
  return best;
}

uint8_t StepModel::enclosing_regions(ScopeId scope) const {
  uint8_t regions = kRegionNone;
  for (ScopeId s = scope; s != kNoScope; s = scopes[s].parent) {
    regions |= scopes[s].regions;
    if (scopes[s].kind != ScopeKind::Function) continue;
    int32_t fn = scopes[s].index;
    if (function_regions_[fn] == -2) return regions;
    if (function_regions_[fn] == -1) {
      if (caller_depth_ >= kMaxCallerDepth) return regions;  // as context_of_function
      const DepthGuard depth(caller_depth_);
      function_regions_[fn] = -2;
      uint8_t from_callers = kRegionNone;
      for (int32_t index : calls_of_[fn]) from_callers |= enclosing_regions(calls[index].scope);
      function_regions_[fn] = from_callers;
    }
    return regions | static_cast<uint8_t>(function_regions_[fn]);
  }
  return regions;
}

bool StepModel::cuda_context() const {
  return framework_gpu || trainer_subclass ||
         std::any_of(moves.begin(), moves.end(),
                     [](const DeviceMove& m) { return on_cuda(m.target); }) ||
         cuda_elsewhere;
}

bool StepModel::has_training_loop() const {
  return std::any_of(loops.begin(), loops.end(),
                     [](const Loop& l) { return l.kind == LoopKind::Training; }) ||
         std::any_of(functions.begin(), functions.end(),
                     [](const Function& f) { return f.per_step_hook; }) ||
         std::any_of(external_callers.begin(), external_callers.end(),
                     [](const ExternalCaller& c) { return c.training; });
}

bool StepModel::loader_in_training_file(const Loader& loader) const {
  if (loader.returned_from_hook || loader.handed_to_trainer || loader.feeds_step_loop_elsewhere)
    return true;
  if (!has_training_loop()) return false;
  if (loader.iterated) return loader_feeds_step_loop_[&loader - loaders.data()];
  return !loader.read_once;
}

// A training loop is innermost unless another runs inside it, in its body or in a function
// its body calls (`while: run_step()` where `run_step` loops over micro-batches).
std::vector<int32_t> StepModel::innermost_training_loops() const {
  std::vector<uint8_t> has_inner(loops.size(), 0);
  // The functions already followed up from loop j hold j + 1: no clearing per loop.
  std::vector<uint32_t> seen(functions.size(), 0);
  std::vector<ScopeId> pending;
  for (size_t j = 0; j < loops.size(); ++j) {
    if (loops[j].kind != LoopKind::Training) continue;
    const uint32_t stamp = static_cast<uint32_t>(j) + 1;
    pending.assign(1, scopes[loops[j].scope].parent);
    while (!pending.empty()) {
      ScopeId s = pending.back();
      pending.pop_back();
      for (; s != kNoScope; s = scopes[s].parent) {
        if (scopes[s].kind == ScopeKind::Loop) has_inner[scopes[s].index] = 1;
        if (scopes[s].kind != ScopeKind::Function) continue;
        const int32_t f = scopes[s].index;
        if (seen[f] == stamp) break;
        seen[f] = stamp;
        for (int32_t call : calls_of_[f]) pending.push_back(calls[call].scope);
        break;
      }
    }
  }
  std::vector<int32_t> out;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].kind == LoopKind::Training && !has_inner[i])
      out.push_back(static_cast<int32_t>(i));
  }
  return out;
}

bool StepModel::repeated(int32_t loop) const {
  for (ScopeId s = scopes[loops[loop].scope].parent; s != kNoScope; s = scopes[s].parent) {
    if (scopes[s].kind == ScopeKind::Loop) return true;
    if (scopes[s].kind != ScopeKind::Function) continue;
    for (int32_t index : calls_of_[scopes[s].index]) {
      for (ScopeId c = calls[index].scope; c != kNoScope; c = scopes[c].parent) {
        if (scopes[c].kind == ScopeKind::Loop) return true;
      }
    }
    return false;
  }
  return false;
}

std::vector<const StepEvent*> StepModel::events_in(int32_t loop, StepEventKind kind) const {
  std::vector<const StepEvent*> out;
  for (const StepEvent& event : events) {
    if (event.kind == kind && step_context(event.scope).loop == loop) out.push_back(&event);
  }
  return out;
}

int32_t StepModel::forward_loop(int32_t loop) const {
  int32_t function = -1;
  for (int32_t l = loop; l >= 0; l = nearest_loop(scopes[loops[l].scope].parent, &function)) {
    if (runs_forward(l)) return l;
  }
  return -1;
}

bool StepModel::amp_in_effect(int32_t loop) const {
  return file_level_amp || loop_amp_[loop] ||
         (enclosing_regions(loops[loop].scope) & kRegionAutocast);
}

}  // namespace gpulint
