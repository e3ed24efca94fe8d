// Values: what a name or expression holds (a tensor, a device, a mask, a constant), followed
// through assignments; whether it carries a graph is autograd.cpp's.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

bool Builder::is_tensor_expr(Node n, int depth) const {
  if (null(n) || depth > kMaxExprDepth) return false;
  TSSymbol sym = n.symbol();
  if (sym == s_.identifier) {
    const std::string_view name = text(n);
    return tensor_names_.count(name) > 0 && !host_names_.count(name);
  }
  if (sym == s_.parenthesized_expression) return is_tensor_expr(n.named_child(0), depth + 1);
  if (sym == s_.attribute) {
    const std::string_view name = dotted_view(n);
    if (!name.empty() && tensor_names_.count(name)) return true;
    Node attr = field(n, s_.f_attribute);
    std::string_view a = null(attr) ? std::string_view{} : text(attr);
    // `.T` transposes a tensor, but `self.T` is a sequence length: only a tensor's counts.
    return a == "loss" || a == "logits" || a == "last_hidden_state" ||
           ((a == "data" || a == "T" || a == "mT") &&
            is_tensor_expr(field(n, s_.f_object), depth + 1));
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
    const std::string_view name = callee_name(n);
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

// A loader's batch that was never moved, or a part of one (`ids[order]`): a host tensor.
bool Builder::holds_host_batch(Node n) const {
  const std::string_view root = root_identifier(n);
  return !root.empty() &&
         std::any_of(loop_stack_.begin(), loop_stack_.end(), [&](const LoopState& l) {
           return l.function == function_ && l.cpu_batch.count(root);
         });
}

// `torch.load(path)`, `torch.load(path, map_location="cpu")`.
bool Builder::reads_checkpoint(Node value) {
  if (!is(value, s_.call) || callee_name(value) != "torch.load") return false;
  const Node map = keyword(arguments(value), "map_location");
  return null(map) || !is_device_expr(map) || classify_device(map) == DeviceTarget::Cpu;
}

// The class of the instance a wrapper call wraps (`DDP(model)`, `torch.compile(model)`), as
// call_results_ knows it; empty when none.
std::string_view Builder::wrapped_instance(Node call, std::string_view tail) const {
  if (tail != "compile" && tail != "DistributedDataParallel" && tail != "DDP" &&
      tail != "DataParallel" && tail != "FSDP")
    return {};
  Node args = field(call, s_.f_arguments);
  Node first = null(args) ? Node{} : args.named_child(0);
  const auto it = call_results_.find(dotted_view(first));
  return it == call_results_.end() ? std::string_view{} : std::string_view(it->second);
}

// What each name a `for` binds iterates, where it is known: the iterable for `for x in xs`,
// a zip's parts (keywords aside: `zip(a, b, strict=True)`), an enumerate's argument.
std::vector<std::pair<Node, Node>> Builder::item_parts(Node left, Node iterable) {
  std::vector<std::pair<Node, Node>> out;
  if (is(left, s_.identifier)) return {{left, iterable}};
  if (!is(left, s_.pattern_list) && !is(left, s_.tuple_pattern)) return out;
  if (!is(iterable, s_.call)) return out;
  const std::string_view made_by = callee_name(iterable);
  Node args = field(iterable, s_.f_arguments);
  if (null(args)) return out;
  std::vector<Node> parts;
  for_each_child(args, [&](Node c) {
    if (!is(c, s_.keyword_argument)) parts.push_back(c);
  });
  if (made_by == "zip" && parts.size() == left.named_child_count()) {
    for (uint32_t i = 0; i < left.named_child_count(); ++i)
      out.emplace_back(left.named_child(i), parts[i]);
  } else if (made_by == "enumerate" && left.named_child_count() == 2 && !parts.empty()) {
    out.emplace_back(left.named_child(1), parts.front());
  }
  std::erase_if(out, [&](const auto& p) { return !is(p.first, s_.identifier); });
  return out;
}

// `for ids in batch.cpu():`, `for c, m in zip(ids.cpu(), mask.cpu()):`: the items of a host
// tensor (or of a NumPy array) are on the host too; reading them waits for nothing. So are
// those of a batch the loop around left on the host (`for caption, id in zip(captions, ids)`
// over ids a dataset returns, never moved), which count as that batch.
void Builder::note_host_items(Node left, Node iterable) {
  LoopState& state = loop_stack_.back();
  const bool plain_call = is(left, s_.identifier) && is(iterable, s_.call);
  for (const auto& [target, part] : item_parts(left, iterable)) {
    if (!plain_call && holds_host_batch(part)) state.cpu_batch.add(text(target));
    if (on_host(part)) {
      host_names_.add(text(target));
    } else {
      host_names_.remove(text(target));
    }
  }
}

// `[ids[:n].tolist() for ids, n in zip(batch.cpu(), lengths)]`: `name` (`ids`) is an item of
// a comprehension around `at` that iterates a host value. Comprehensions bind no name the walk
// keeps, so this is asked where a value is read; it looks no further out than the statement.
bool Builder::comprehension_item_on_host(Node at, std::string_view name) {
  if (name.empty()) return false;
  for (Node a = at.parent(); !null(a) && !is(a, s_.block) && !is(a, s_.module); a = a.parent()) {
    for (Node c = a.first_child(); !null(c); c = c.next_sibling()) {
      if (!is(c, s_.for_in_clause)) continue;
      for (const auto& [target, part] : item_parts(field(c, s_.f_left), field(c, s_.f_right))) {
        if (text(target) == name) return on_host(part);
      }
    }
  }
  return false;
}

void Builder::on_assignment(Node n, int depth) {
  Node left = field(n, s_.f_left), right = field(n, s_.f_right);
  if (!null(right)) visit(right, depth + 1);
  std::vector<std::string_view> names;
  target_names(left, names);
  if (null(right)) return;
  Node value = unparen(right);
  on_setting(left, value);
  const bool moved = moves_to_device(value);
  // `frozen = copy.deepcopy(net).eval().requires_grad_(False)`: the copy is what is frozen.
  if (is(left, s_.identifier) && contains_text(value, ".requires_grad_(False)"))
    frozen_models_.add(text(left));
  // `images[0] = images[0].cuda()`: the batch's parts are moved one by one; what stays behind
  // is not known, so the batch no longer counts as on the host.
  if (moved && is(left, s_.subscript) && !loop_stack_.empty()) {
    Node root = left;
    for (int d = 0; d < kMaxExprDepth && is(root, s_.subscript); ++d)
      root = field(root, s_.f_value);
    loop_stack_.back().cpu_batch.remove(dotted_view(root));
  }
  // `heads[key] = head` of a head already on the device: the container holds it there.
  if (is(left, s_.subscript) && is(value, s_.identifier) && on_device_names_.count(text(value))) {
    const std::string_view container = dotted_view(field(left, s_.f_value));
    if (!container.empty()) on_device_names_.add(container);
  }
  if (names.empty()) return;
  const std::string_view name = names.front();
  const bool single = names.size() == 1;
  if (single && name.starts_with("self.") && is(value, s_.identifier) && function_ >= 0 &&
      !params_.empty() && params_.back().count(text(value)) &&
      m_.functions[function_].name == "__init__" && !class_name_.empty()) {
    const std::vector<std::string>& list = m_.functions[function_].parameters;
    const auto at = std::find(list.begin(), list.end(), text(value));
    constructor_attributes_[std::string(class_name_) + ":" + std::string(name)] = {
        static_cast<int32_t>(at - list.begin()) - 1, std::string(text(value))};
  }
  // `self.network = nn.Sequential(...)` in a module's method: the network moves with the
  // instance, which whoever owns it places (`algorithm.to(device)` in another file).
  if (single && name.starts_with("self.") && module_classes_.count(class_name_))
    passed_in_names_.add(name);
  if (single && function_ >= 0 && !pending_accumulations_.empty()) note_derived(name, value);

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
  // A value computed under no_grad has no graph, wherever it is read later.
  const bool graph = is_graph_expr(value);
  const bool graphless = (graph && under_no_grad()) || reads_graphless(value);
  for (std::string_view t : names) {
    if (graph && !graphless) {
      grad_names_.add(t);
    } else {
      grad_names_.remove(t);
    }
    if (graphless) {
      graphless_names_.add(t);
    } else {
      graphless_names_.remove(t);
    }
  }
  if (single) {
    if (is_scalar_expr(value)) {
      scalar_names_.add(name);
    } else {
      scalar_names_.remove(name);
    }
    bool counter = false;
    if (is(value, s_.binary_operator) && counts_steps(value, counter) && counter) {
      counter_names_.add(name);
    }
    const bool condition = is(value, s_.comparison_operator) || is(value, s_.boolean_operator) ||
                           is(value, s_.not_operator);
    if (condition && classify_guard(value) == Guard::Interval) {
      guard_flags_.add(name);
    } else {
      guard_flags_.remove(name);
    }
    if (is_mask(value)) {
      mask_names_.add(name);
    } else {
      mask_names_.remove(name);
    }
    if (is_clock(value)) {
      clock_names_.add(name);
    } else {
      clock_names_.remove(name);
    }
  }
  const bool tensor = is_tensor_expr(value);
  note_tensor_devices(names, value);
  // `image, mask = batch["image"], batch["mask"]`: each name gets its own element.
  const bool elementwise = !single && (is(value, s_.expression_list) || is(value, s_.tuple)) &&
                           value.named_child_count() == names.size();
  // What a name holds is what it was last given, in source order: `x = step / n` after
  // `x = model(batch)` holds a number.
  // `header = torch.from_file(...)`: a tensor on the host, whose value costs no sync; so is what
  // a checkpoint read without a CUDA `map_location` holds (a step counter, saved statistics).
  if (single) {
    if (on_host(value) || reads_checkpoint(value)) {
      host_names_.add(name);
    } else {
      host_names_.remove(name);
    }
  } else {
    // `actions, pmf = net.act(obs)` after `actions = np.array(...)`: rebound, maybe to the GPU;
    // `_, predicted = torch.max(outputs, 1)` of host outputs: each part on the host.
    const bool whole_on_host = !elementwise && on_host(value);
    for (size_t i = 0; i < names.size(); ++i) {
      if (whole_on_host || (elementwise && on_host(value.named_child(static_cast<uint32_t>(i))))) {
        host_names_.add(names[i]);
      } else {
        host_names_.remove(names[i]);
      }
    }
  }
  // Within a branch it is one of the values the name may hold (`acc = None` in an else).
  const bool unconditional =
      m_.scopes[scope_].kind != ScopeKind::Branch && m_.scopes[scope_].kind != ScopeKind::Handler;
  const bool placed = is(value, s_.call) && call_places(value);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string_view t = names[i];
    if (elementwise ? is_tensor_expr(value.named_child(static_cast<uint32_t>(i))) : tensor) {
      tensor_names_.add(t);
    } else if (unconditional) {
      tensor_names_.remove(t);
    }
    if (moved || placed) on_device_names_.add(t);
  }
  if (single) note_rebound_model(name, value, moved || placed, unconditional);
  if (contains_text(value, "autocast")) autocast_names_.add(name);

  if (!is(value, s_.call) && unconditional) {
    // `meter = None` after `meter = Meter()`: the name no longer holds what the call returned.
    // In a branch it is one of the values it may hold (`decoder = checkpoint["decoder"]` in
    // the else of `decoder = Decoder(...)`).
    for (std::string_view t : names) call_results_.remove(t);
  }
  if (is(value, s_.call)) {
    const std::string_view callee = callee_name(value);
    std::string_view tail = last_component(callee);
    if (single && !m_.loaders.empty() && m_.loaders.back().call == span(value)) {
      loader_names_[std::string(name)] = static_cast<int32_t>(m_.loaders.size() - 1);
      loader_bindings_.emplace_back(name, static_cast<int32_t>(m_.loaders.size() - 1), function_);
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
    } else if (const std::string_view wrapped = wrapped_instance(value, tail);
               single && !wrapped.empty()) {
      // `model = DDP(model)`: calling the wrapper runs the wrapped model's forward.
      std::string klass(wrapped);
      call_results_[std::string(name)] = std::move(klass);
    } else if (const std::string_view m = method_of(value);
               single &&
               (m == "to" || m == "cuda" || m == "half" || m == "bfloat16" || m == "float" ||
                m == "train" || m == "eval") &&
               call_results_.count(dotted_view(receiver_of(value)))) {
      // `model = model.cuda()`: still the instance it was.
      std::string klass = call_results_.find(dotted_view(receiver_of(value)))->second;
      call_results_[std::string(name)] = std::move(klass);
    } else if (auto made = single ? instance_functions_.find(callee) : instance_functions_.end();
               made != instance_functions_.end()) {
      // `model = load_model(cfg)`, a function of this file returning `Net(cfg).cuda()`.
      std::string klass = made->second;
      call_results_[std::string(name)] = std::move(klass);
    } else if (single && wraps_itself(value, name)) {
      // `model = apply_gradient_allreduce(model)`: a wrapper runs the instance's forward.
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
    // `inner = copy.deepcopy(self.network)`: the copy is wherever the original is.
    if (single && tail == "deepcopy") passed_in_names_.add(name);
    // `model = make_net()` of a factory the function was handed: made, and maybe placed, by code
    // the caller chose.
    if (single && !params_.empty() && params_.back().count(callee)) passed_in_names_.add(name);
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
    if ((tail == "device" && callee.find("torch") != std::string_view::npos) ||
        is_xla_device_call(callee)) {
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
    if (single && module_classes_.count(tail) && !own_parameter_classes_.count(tail) &&
        built_on_device(value)) {
      on_device_names_.add(name);
    }
    // `model = model.to(device)` / `model = Net().cuda()`, also followed by a dtype or mode
    // switch: `AutoModel.from_pretrained(name).to("cuda").half().eval()`.
    const Node to_call = under_mode_switches(value);
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
    const std::string v = string_value(value);
    if (names_device(v)) bind_device(name, device_of_string(v));
  } else if (is(value, s_.conditional_expression) && single) {
    std::string_view t = text(value);
    if (t.find("\"cuda") != std::string_view::npos || t.find("'cuda") != std::string_view::npos) {
      device_names_[std::string(name)] = {DeviceTarget::MaybeCuda};
    } else if (const DeviceTarget target = device_of_choice(value);
               target != DeviceTarget::MaybeCuda) {
      device_names_[std::string(name)] = {target};  // `"mps" if mps_ok else "cpu"`
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
  if (single && (is(value, s_.dictionary) || (is(value, s_.call) && callee_name(value) == "dict") ||
                 is(value, s_.conditional_expression))) {
    auto& dict = dicts_[std::string(name)];
    dict.clear();
    dict.emplace_back(value, false);
  }
  if (single && looks_like_device(name) && !device_names_.count(name)) {
    device_names_[std::string(name)] = {classify_device(value)};
  }
}

// Settings written as assignments: TF32 switches, CUDA_LAUNCH_BLOCKING, and DeepSpeed precision
// sections (`ds_config["bf16"] = {"enabled": True}`).
void Builder::on_setting(Node left, Node value) {
  if (is(left, s_.subscript)) note_precision_section(field(left, s_.f_subscript), value);
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

// `AllHeads(heads)` of a class that only holds what it is given: on the device when something it
// is given is, and no model it is given is known to be elsewhere.
bool Builder::built_on_device(Node call) {
  std::vector<std::string_view>& read = scratch_names_;
  read.clear();
  const Args args = arguments(call);
  for (Node p : args.positional) read_names(p, read);
  for (const auto& kv : args.keywords) read_names(kv.second, read);
  bool on_device = false;
  for (std::string_view r : read) {
    if (on_device_names_.count(r)) {
      on_device = true;
    } else if (model_names_.count(r) || module_names_.count(r)) {
      return false;
    }
  }
  return on_device;
}

bool Builder::reads_cpu_batch(Node value, const LoopState& state) {
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

void Builder::on_augmented(Node n, int depth) {
  visit_children(n, depth);
  Node left = field(n, s_.f_left), right = field(n, s_.f_right);
  std::string name = dotted(left);
  if (name.empty()) return;
  Node op = field(n, s_.f_operator);
  if (!null(op) && text(op) == "+=") note_accumulation(n, name, right);
  // `step += 1`, and `cur_nimg += batch_size`: a count of steps, or of the samples they took.
  const bool grown =
      !null(op) && text(op) == "+=" &&
      (is(right, s_.integer) || ((is(right, s_.identifier) || is(right, s_.attribute)) &&
                                 contains_text(right, "batch_size")));
  if (text(right) == "1" || grown) counter_names_.insert(name);
  if (is_tensor_expr(right)) tensor_names_.insert(name);
  if (!loop_stack_.empty()) loop_stack_.back().bound.insert(name);
}

// `model = wrap(model)` where `model` holds an instance of a class of the project and `wrap` is a
// function, not a class: the result still runs the instance's forward (a DDP-like wrapper).
bool Builder::wraps_itself(Node call, std::string_view name) const {
  const std::string_view callee = callee_name(call);
  if (callee.empty() || names_class(callee)) return false;
  const auto held = call_results_.find(name);
  if (held == call_results_.end() || !names_class(held->second)) return false;
  Node args = field(call, s_.f_arguments);
  return !null(args) && args.named_child_count() >= 1 && text(args.named_child(0)) == name;
}

void Builder::on_return(Node n, int depth) {
  visit_children(n, depth);
  if (function_ < 0) return;
  Node value = unparen(n.named_child(0));
  if (null(value)) return;
  note_dataset_item(value);
  // A project helper returning an autocast context: `with mixed_precision():` is AMP.
  if (contains_text(value, "autocast")) autocast_names_.insert(m_.functions[function_].name);
  // `def dev(): return torch.device(f"cuda:{rank}")`: `x.to(dev())` moves x to a device.
  const bool device = is(value, s_.call) ? last_component(callee_name(value)) == "device"
                                         : (is(value, s_.string) || is(value, s_.identifier)) &&
                                               is_device_expr(value);
  if (device) {
    const std::string& name = m_.functions[function_].name;
    device_functions_.add(class_name_.empty() ? name : std::string(class_name_) + "." + name);
  }
  if (class_name_.empty() && returns_placed(value))
    placed_functions_.add(m_.functions[function_].name);
  // Module-level functions only, which are what calls elsewhere name: a nested function's name
  // means another function outside it.
  if (class_name_.empty() && m_.function_of(m_.scopes[m_.functions[function_].scope].parent) < 0) {
    const bool host = on_host(value) && !is_scalar_expr(value);
    (host ? host_returns_ : other_returns_).add(m_.functions[function_].name);
  }
  // `def load_model(cfg): model = Net(cfg).cuda(); ...; return model`: its callers get a Net.
  if (class_name_.empty() && is(value, s_.identifier)) {
    const auto held = call_results_.find(text(value));
    if (held != call_results_.end() && names_class(held->second))
      instance_functions_[m_.functions[function_].name] = held->second;
  }
  // `def collate(items): return items[0]`, or `__call__(self, items)` of a class doing so.
  const Function& f = m_.functions[function_];
  const size_t first = class_name_.empty() ? 0 : 1;
  if (f.parameters.size() == first + 1 && first_item_of(value, f.parameters[first])) {
    if (class_name_.empty()) {
      unwrapping_functions_.add(f.name);
    } else if (f.name == "__call__") {
      unwrapping_functions_.add(class_name_);
    }
  }
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

Value Builder::resolve(Node n) const {
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

}  // namespace gpulint::python
