// Calls: torch API recognition, host syncs, device moves, outputs, and calls to follow.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/core/torch_api.h"
#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

void Builder::add_api(ApiKind kind, Node n, std::string_view spelling, Node value) {
  ApiUse use;
  use.kind = kind;
  use.span = span(n);
  use.scope = scope_;
  use.spelling = std::string(spelling);
  if (is(n, s_.call)) {
    Node callee = field(n, s_.f_function);
    use.callee = span(callee);
    use.written = dotted(callee);
    use.arguments = argument_list(n);
  }
  if (!null(value)) use.value = span(value);
  if (kind == ApiKind::DetectAnomaly || kind == ApiKind::LaunchBlocking ||
      kind == ApiKind::AutogradProfiler)
    use.debug_guarded = debug_guarded(n);
  m_.api_uses.push_back(std::move(use));
}

Builder::Args Builder::arguments(Node call) {
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

Node Builder::keyword(const Args& a, std::string_view name) {
  for (const auto& [k, v] : a.keywords) {
    if (k == name) return v;
  }
  return Node{};
}

void Builder::on_call(Node n, int depth) {
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
  if (method == "to" && !args.positional.empty()) note_device_call(args.positional.front());
  if (Node device = keyword(args, "device"); !null(device)) note_device_call(device);
  if (Node device = keyword(args, "device");
      !null(device) && is_device_expr(device) && !follows_tensor(device)) {
    add_move(n, classify_device(device), {}, false);
  }

  if (!method.empty()) on_method_call(n, callee, method, args, output);
  const bool optimizer = is_optimizer_constructor(callee);
  on_api_call(n, {callee, tail, method, optimizer}, args);
  // (`make_data_loader` is LibTorch's; in Python it is a project's own helper, whose loader is
  // judged where the helper builds it.)
  if (tail == "DataLoader") on_loader(n, args);
  if (callee == "print") add_output(n, OutputKind::Console, callee);
  if ((callee == "float" || callee == "int" || callee == "bool") && args.positional.size() == 1 &&
      args.keywords.empty()) {
    if (!in_raise_ && is_tensor_expr(args.positional.front()))
      tensor_converts_.push_back({n, args.positional.front(), scope_, in_output_});
  }
  if (callee == "next" && !args.positional.empty()) on_next(args.positional.front());
  if (tail == "first" && args.positional.size() == 1 && imported_from(callee, "monai"))
    on_next(args.positional.front(), /*whole=*/true);
  // MONAI's `ToDeviced(keys=[...], device=device)` in a dataset's transforms moves each item.
  if ((tail == "ToDeviced" || tail == "ToDevice") && imported_from(callee, "monai")) {
    const Node device = keyword(args, "device");
    if (!null(device) && is_device_expr(device) && classify_device(device) != DeviceTarget::Cpu)
      items_to_device_ = true;
  }
  // `loss_scaler(loss, optimizer)`: timm's scaler objects (and the projects that copy them) run
  // backward and the optimizer step when called, wherever the instance was made.
  if (!tail.empty() && std::islower(static_cast<unsigned char>(tail.front())) &&
      tail.find("scaler") != std::string_view::npos && !args.positional.empty()) {
    m_.events.push_back({StepEventKind::Backward, span(n), scope_, {}});
    add_api(ApiKind::GradScaler, n, callee);  // they scale the loss: no fp16 underflow
  }
  // `torch.autograd.grad(loss, model.parameters())` runs the backward pass of a training step
  // and hands back the gradients; taken with respect to inputs (`latents`: guidance, saliency)
  // it trains nothing.
  if (callee == "torch.autograd.grad" || callee == "autograd.grad") {
    Node inputs = args.positional.size() > 1 ? args.positional[1] : keyword(args, "inputs");
    if (!null(inputs) && (contains_text(inputs, "param") || contains_text(inputs, "weight")))
      m_.events.push_back({StepEventKind::Backward, span(n), scope_, {}});
  }
  if (tail == "Trainer" || tail == "Accelerator" || tail == "Fabric" ||
      trainer_classes_.count(tail)) {
    on_framework(n, tail, args);
  }
  if (is_deepspeed_initialize(callee)) on_deepspeed(args);
  if (tail == "from_pretrained") note_pretrained_precision(args);
  if (tail == "TrainingArguments" || tail == "Seq2SeqTrainingArguments") {
    bool cpu = is(keyword(args, "no_cuda"), s_.true_) || is(keyword(args, "use_cpu"), s_.true_);
    if (!cpu) m_.framework_gpu = true;
  }
  // A precision switch handed to any call (`TrainingArguments(bf16=True)`, a project's
  // `MixedPrecisionTrainer(model, use_fp16=args.use_fp16)`): reduced precision unless it is
  // literally off. One gpulint cannot resolve counts as on, as every unresolved precision
  // setting does.
  for (const auto& [name, value] : args.keywords) {
    if (names_precision_switch(name) && !switched_off(value)) m_.file_level_amp = true;
  }
  // FSDP's mixed precision: parameters cast to `param_dtype` for the forward (FSDP2's
  // `MixedPrecisionPolicy`, FSDP1's `MixedPrecision`). A dtype from a variable may be reduced.
  if (tail == "MixedPrecisionPolicy" || tail == "MixedPrecision") {
    Node dtype = args.positional.empty() ? keyword(args, "param_dtype") : args.positional.front();
    const std::string_view spelled = null(dtype) ? std::string_view{} : last_component(text(dtype));
    if (!null(dtype) && spelled != "float32" && spelled != "float" && spelled != "None")
      m_.file_level_amp = true;
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
  // Whether the callee can receive a tensor from here (drop_syncs_no_caller_reaches).
  const bool scalars = !callee.empty() && only_scalars(args);
  if (!callee.empty() && (callee.find('.') == std::string::npos || self_call)) {
    std::vector<std::string_view> read;
    const bool loop_data = has_loop_data(args, read);
    // `self(x)` in a method runs the class's own forward.
    const std::string_view klass = self_call || callee == "self" ? class_name_ : std::string_view{};
    pending_calls_.push_back({callee, klass, span(n), scope_, loop_data, scalars});
    // Only calls of this file's functions matter (judge_parameter_conditions): defined above
    // the call, as helpers are, or methods (`self.clip(loss)`), which may come later.
    if (self_call || function_by_name_.count(callee)) {
      for (size_t i = 0; i < args.positional.size() && !args.list_splat; ++i) {
        if (is_tensor_expr(args.positional[i])) tensor_arguments_.push_back({callee, klass, i});
        guard_arguments_.push_back({callee, klass, i, {}, is_interval_value(args.positional[i])});
      }
      for (const auto& [name, value] : args.keywords)
        guard_arguments_.push_back(
            {callee, klass, std::string_view::npos, name, is_interval_value(value)});
    }
    if (!loop_data && !loop_stack_.empty() && loop_stack_.back().function == function_)
      loop_stack_.back().carried_calls.emplace_back(pending_calls_.size() - 1, std::move(read));
    note_instance_call(n, callee, scalars);
  } else if (!callee.empty() && !callee.starts_with("self.")) {
    pending_dotted_calls_.push_back({callee, {}, span(n), scope_, false, scalars});
    note_method_of_instance(n, callee, method, scalars);
  } else if (!callee.empty()) {
    note_method_of_instance(n, callee, method, scalars);  // `self.mp_trainer.optimize(...)`
  }
  if (!callee.empty()) note_flows(callee, args);
  if (!callee.empty()) note_model_inputs(n, callee, args);
}

// `self.r` in a method of a class whose `r` is a property: a call of its getter.
void Builder::note_property_read(Node attribute) {
  if (class_name_.empty() || function_ < 0) return;
  const std::string_view read = dotted_view(attribute);
  if (!read.starts_with("self.") || read.find('.', 5) != std::string_view::npos) return;
  if (!properties_.count(std::string(class_name_) + "." + std::string(read.substr(5)))) return;
  pending_calls_.push_back({read, class_name_, span(attribute), scope_, false, true});
}

// `x.update(...)` where `x = MetricLogger(...)` (a class: the name is capitalised): the
// method runs, wherever the class is defined.
void Builder::note_method_of_instance(Node n, std::string_view callee, std::string_view method,
                                      bool scalars) {
  // The receiver is what comes before the method: `logger` or `self.mp_trainer`.
  const size_t dot = callee.rfind('.');
  if (call_results_.empty() || dot == std::string::npos || dot + 1 + method.size() != callee.size())
    return;
  auto it = call_results_.find(std::string_view(callee).substr(0, dot));
  if (it == call_results_.end()) return;
  if (!names_class(it->second)) return;
  pending_method_calls_.push_back({it->second, std::string(method), span(n), scope_, scalars});
}

// `model(x)` where `model = Tagger(...)`: calling a module instance runs Tagger.forward.
void Builder::note_instance_call(Node n, std::string_view callee, bool scalars) {
  if (call_results_.empty()) return;
  auto it = call_results_.find(callee);
  if (it == call_results_.end()) return;
  if (!names_class(it->second)) return;
  pending_method_calls_.push_back({it->second, "forward", span(n), scope_, scalars});
}

void Builder::on_api_call(Node n, const Callee& c, const Args& args) {
  const std::string_view callee = c.name, tail = c.tail, method = c.method;
  Node first = args.positional.empty() ? Node{} : args.positional.front();
  // `torch.set_default_tensor_type(torch.cuda.BFloat16Tensor)`, `torch.set_default_device("cuda")`:
  // the modules built afterwards hold their parameters on the GPU already.
  if ((tail == "set_default_tensor_type" || tail == "set_default_device") && !null(first) &&
      (contains_text(first, "cuda") ||
       (tail == "set_default_device" && is_device_expr(first) && on_cuda(classify_device(first)))))
    cuda_by_default_ = true;
  if (tail == "DataParallel" || callee.ends_with("parallel.data_parallel")) {
    add_api(ApiKind::DataParallel, n, callee);
  }
  if ((tail == "autocast" || tail == "GradScaler") &&
      (callee.starts_with("torch.cuda.amp.") || callee.starts_with("torch.cpu.amp.") ||
       callee.starts_with("cuda.amp.") || deprecated_amp_names_.count(callee))) {
    add_api(ApiKind::DeprecatedAmp, n, callee);
    m_.api_uses.back().version_guarded = version_guarded(n);
  }
  // `partial(torch.cuda.amp.autocast, dtype=...)`: the deprecated API, called later.
  if (tail == "partial" && (is(first, s_.attribute) || is(first, s_.identifier))) {
    const std::string_view inner = dotted_view(first);
    const std::string_view inner_tail = last_component(inner);
    if ((inner_tail == "autocast" || inner_tail == "GradScaler") &&
        (inner.starts_with("torch.cuda.amp.") || inner.starts_with("torch.cpu.amp.") ||
         deprecated_amp_names_.count(inner))) {
      add_api(ApiKind::DeprecatedAmp, first, inner);
      m_.api_uses.back().version_guarded = version_guarded(n);
    }
  }
  if (tail == "GradScaler" || tail == "ShardedGradScaler") add_api(ApiKind::GradScaler, n, callee);
  // `pack_padded_sequence(x, lengths)` wants its lengths on the host: a batch's lengths that go
  // there stay on the host by design, also where the model is given them too.
  if (tail == "pack_padded_sequence" && !loop_stack_.empty()) {
    Node lengths = keyword(args, "lengths");
    if (null(lengths) && args.positional.size() > 1) lengths = args.positional[1];
    if (is(lengths, s_.identifier)) loop_stack_.back().cpu_batch.remove(text(lengths));
  }
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
  // `torch.nonzero(x)` has the method `nonzero` too: every match has the op as its method.
  const bool as_function = callee.starts_with("torch.") && callee.substr(6) == method;
  if (torch_api::is_dynamic_shape(method) && dynamic_output(method, args, as_function)) {
    if (as_function) {
      dynamic(n, (std::string(callee) + "(...)").c_str());
    } else if (is_tensor_expr(receiver_of(n))) {
      dynamic_methods_.emplace_back(n, scope_);
    }
  }
  on_module_construction(n, callee, tail, args);
}

// `False`, `None`, `0`, `"no"`, `"fp32"`: a precision switch set to full precision.
bool Builder::switched_off(Node value) const {
  value = unparen(value);
  if (is(value, s_.false_) || is(value, s_.none)) return true;
  if (is(value, s_.integer)) return text(value) == "0";
  if (!is(value, s_.string)) return false;
  const std::string v = string_value(value);
  return v == "no" || v == "fp32" || v == "32" || v == "32-true" || v == "float32";
}

// `repeat_interleave` has a static size with a number of repeats or an `output_size`; only
// tensor repeats make the host wait for the size.
bool Builder::dynamic_output(std::string_view op, const Args& args, bool as_function) const {
  if (op != "repeat_interleave") return true;
  if (!null(keyword(args, "output_size"))) return false;
  Node repeats = keyword(args, "repeats");
  const size_t at = as_function ? 1 : 0;
  if (null(repeats) && args.positional.size() > at) repeats = args.positional[at];
  return !null(repeats) && is_tensor_expr(repeats);
}

void Builder::dynamic(Node n, const char* spelling) {
  m_.dynamic_shapes.push_back({span(n), scope_, spelling});
}

// `nn.Linear`, `torch.nn.Conv2d`: a module of torch.nn (containers included).
bool Builder::is_module_constructor(std::string_view callee) {
  if (!callee.starts_with("nn.") && !callee.starts_with("torch.nn.")) return false;
  const std::string_view tail = last_component(callee);
  return !tail.empty() && std::isupper(static_cast<unsigned char>(tail[0])) &&
         callee.find(".functional.") == std::string::npos &&
         callee.find(".utils.") == std::string::npos &&
         callee.find(".init.") == std::string::npos && tail != "Parameter" &&
         tail != "ParameterList" && tail != "ParameterDict" && tail != "ModuleList" &&
         tail != "ModuleDict";
}

void Builder::on_module_construction(Node n, std::string_view callee, std::string_view tail,
                                     const Args& args) {
  const bool in_init =
      !class_name_.empty() && function_ >= 0 && m_.functions[function_].name == "__init__";
  if (in_init &&
      (tail == "Parameter" || tail == "register_parameter" || tail == "register_buffer")) {
    own_parameter_classes_.add(class_name_);
  }
  if (!is_module_constructor(callee)) return;
  if (in_init && !is_parameterless_module(callee)) own_parameter_classes_.add(class_name_);
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
  int32_t position = 0;
  for (Node p : args.positional) {
    if (is(p, s_.integer)) mc.dims.push_back({literal_number(p), span(p), position, {}});
    ++position;
  }
  for (const auto& [k, v] : args.keywords) {
    if (is(v, s_.integer)) mc.dims.push_back({literal_number(v), span(v), -1, std::string(k)});
  }
  m_.modules.push_back(std::move(mc));
}

bool Builder::has_loop_data(const Args& args, std::vector<std::string_view>& names) {
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
void Builder::note_model_inputs(Node call, std::string_view callee, const Args& args) {
  if (loop_stack_.empty() || loop_stack_.back().function != function_) return;
  const LoopState& state = loop_stack_.back();
  if (state.cpu_batch.empty() || runs_on_host(callee)) return;
  auto check = [&](Node arg) {
    if (null(arg) || !reads_cpu_batch(arg, state) || moves_to_device(arg)) return;
    UnmovedInput input;
    input.span = span(arg);
    input.scope = scope_;
    input.loop = state.loop;
    input.name = std::string(text(arg));
    input.model = callee;
    const std::string_view root = root_identifier(arg);
    input.moved_elsewhere = !root.empty() && state.moved_batch.count(root) > 0;
    input.others_moved = !state.moved_batch.empty() && !input.moved_elsewhere;
    pending_inputs_.push_back({std::string(callee), std::move(input)});
  };
  for (Node p : args.positional) check(p);
  for (const auto& kv : args.keywords) check(kv.second);
  for (Node d : args.dict_splats) check(d);
  (void)call;
}

bool Builder::is_output_call(std::string_view callee, std::string_view method, Node call) const {
  if (callee == "print") return true;
  if (method.empty()) return false;
  const std::string_view receiver = receiver_name(call, callee, method);
  return (is_logging_method(method) && is_logger_receiver(receiver)) || method == "set_postfix" ||
         method == "set_description" || method == "set_postfix_str" ||
         (method == "write" && (last_component(receiver) == "tqdm" || is_console(receiver))) ||
         (method == "print" && is_console(receiver)) || is_metrics_method(method) ||
         (method == "log" &&
          (receiver == "wandb" || receiver == "mlflow" || tracker_runs_.count(receiver)));
}

// Streams, and the frameworks whose `print` writes to the console (on rank 0): Fabric's and
// accelerate's.
bool Builder::is_console(std::string_view receiver) {
  const std::string_view tail = last_component(receiver);
  return receiver == "sys.stdout" || receiver == "sys.stderr" || tail == "fabric" ||
         tail == "accelerator";
}

void Builder::add_output(Node n, OutputKind kind, std::string_view callee) {
  m_.outputs.push_back({kind, span(n), scope_, std::string(callee), {}, {}});
}

void Builder::add_sync(Node n, SyncKind kind, std::string spelling) {
  // `raise ValueError(f"loss {loss.item()}")` reads the value once, as the run stops.
  if (in_raise_) return;
  // Without CUDA there is no device to wait for.
  if (host_only_ > 0) return;
  m_.syncs.push_back({kind, span(n), scope_, std::move(spelling), in_output_});
}

// `output`: is_output_call's answer for this call, which on_call has already asked.
void Builder::on_method_call(Node n, std::string_view callee, std::string_view method,
                             const Args& args, bool output) {
  Node recv = unparen(receiver_of(n));
  // Without a chain callee the receiver may still be one in parentheses: `(model).cuda()`.
  const std::string_view receiver =
      callee.empty() ? dotted_view(recv) : receiver_name(n, callee, method);
  if (method == "requires_grad_") note_requires_grad(recv, args);
  // `self.backward()` in a trainer class (`def backward(self): self.loss = ...`) is the class's
  // own method, judged by its body as any method call is, not autograd's backward of a tensor.
  const bool bare_self_call =
      receiver == "self" && args.positional.empty() && args.keywords.empty();

  if (output) {
    OutputKind kind = is_console(receiver) ? OutputKind::Console
                      : method == "set_postfix" || method == "set_description" ||
                              method == "set_postfix_str" || method == "write"
                          ? OutputKind::ProgressBar
                      : is_metrics_method(method) || method == "log" ? OutputKind::MetricsWriter
                                                                     : OutputKind::Logging;
    add_output(n, kind, callee.empty() ? method : callee);
  }

  if (method == "item" || method == "tolist" || method == "cpu") {
    if (is(recv, s_.call)) note_host_call(recv);
    // Reading a host tensor waits for nothing, nor does reading a copy already on the host.
    if (holds_host_batch(recv) || on_host(recv) || !args.positional.empty() ||
        comprehension_item_on_host(n, root_identifier(recv)))
      return;
    if (method == "cpu") return add_sync(n, SyncKind::HostCopy, ".cpu()");
    if (copied_on_the_way(recv) || receiver.starts_with("np.")) return;
    if (method == "item") return add_sync(n, SyncKind::Item, ".item()");
    return add_sync(n, SyncKind::ToList, ".tolist()");
  }
  if (method == "to") {
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
  } else if (method == "to_empty") {
    // `model.to_empty(device=device)` of a model built on `meta`: its storage is made there.
    Node d = keyword(args, "device");
    if (!null(d) && is_device_expr(d) && classify_device(d) != DeviceTarget::Cpu)
      on_device_move(n, recv, receiver, classify_device(d), false, text(d));
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
  } else if ((method == "backward" && !bare_self_call) || method == "manual_backward") {
    m_.events.push_back({StepEventKind::Backward, span(n), scope_, {}});
    const std::string_view owner = last_component(receiver);
    if (method == "backward" && (owner == "accelerator" || owner == "fabric"))
      framework_backward_ = true;
    // What backward() is called on is a tensor: `loss.backward()`, `backward(loss)`.
    std::string loss = method == "backward" && !receiver.empty() ? std::string(receiver)
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
    // `for opt in optimizers: opt.step()`: stepping each optimizer is one step of the enclosing
    // loop or function, not a loop of steps of its own.
    ScopeId at = scope_;
    if (!loop_stack_.empty() && loop_stack_.back().function == function_ && !receiver.empty() &&
        receiver == loop_stack_.back().element)
      at = m_.scopes[m_.loops[loop_stack_.back().loop].scope].parent;
    if (optimizer && !scheduler)
      m_.events.push_back({StepEventKind::OptimizerStep, span(n), at, {}});
  } else if ((method == "train" || method == "eval") && args.positional.size() <= 1 &&
             !receiver.empty() && receiver != "self" && !is_loss_constructor(receiver)) {
    if (!loss_names_.count(receiver)) model_names_.add(receiver);
  } else if (method == "half" || method == "bfloat16") {
    note_reduced_dtype(n, receiver, true);
  } else if (method == "float") {
    if (model_names_.count(receiver)) model_dtypes_.push_back({std::string(receiver), false});
  } else if (method == "append" && args.positional.size() == 1 && !receiver.empty()) {
    note_accumulation(n, receiver, args.positional.front());
  } else if (method == "update" && dicts_.count(receiver) && args.positional.size() == 1) {
    // `kwargs.update({...})`: under `if use_cuda:` (or no branch) it counts; under any other
    // branch the dict's contents are not known.
    bool other_branch = false, cuda_branch = false;
    for (bool cuda : cuda_branch_stack_) (cuda ? cuda_branch : other_branch) = true;
    if (other_branch && !cuda_branch) {
      dicts_[std::string(receiver)].emplace_back(Node{}, false);
    } else {
      dicts_[std::string(receiver)].emplace_back(args.positional.front(), true);
    }
  } else if (method == "register_buffer" && receiver == "self" && !args.positional.empty() &&
             is(args.positional.front(), s_.string)) {
    // `self.register_buffer("queue_ptr", torch.zeros(1))`: `self.queue_ptr` is a tensor, on
    // the module's device.
    tensor_names_.add("self." + string_value(args.positional.front()));
  } else if (method == "fit" || method == "prepare" || method == "validate" || method == "test") {
    for (Node p : args.positional) hand_to_framework(p);
    for (const auto& kv : args.keywords) hand_to_framework(kv.second);
  }
}

void Builder::note_model_dtype(Node n, std::string_view receiver, const Args& args) {
  std::string_view t = text(field(n, s_.f_arguments));
  bool reduced = t.find("float16") != std::string_view::npos ||
                 t.find("bfloat16") != std::string_view::npos ||
                 t.find("half") != std::string_view::npos;
  bool full = t.find("float32") != std::string_view::npos;
  if (reduced || full) note_reduced_dtype(n, receiver, reduced);
  (void)args;
}

void Builder::note_reduced_dtype(Node n, std::string_view receiver, bool reduced) {
  // `model.half().float()` ends in fp32: a later `.float()` on the chain wins.
  Node parent = n.parent();
  if (is(parent, s_.attribute)) {
    Node attr = field(parent, s_.f_attribute);
    if (!null(attr) && text(attr) == "float") return;
  }
  std::string root(receiver);
  // `self.embed = nn.Embedding(...).bfloat16()`, `self.head.half()`: a module of the model kept
  // in half precision, its inputs cast to match. The model runs in reduced precision by hand.
  Node built = receiver_of(n);
  if (reduced && ((is(built, s_.call) && (is_module_constructor(callee_name(built)) ||
                                          module_classes_.count(callee_name(built)))) ||
                  module_names_.count(receiver))) {
    reduced_module_ = true;
  }
  if (root.empty()) {
    Node r = receiver_of(n);
    while (is(r, s_.call)) r = receiver_of(r);
    root = dotted(r);
  }
  if (!root.empty()) model_dtypes_.push_back({root, reduced});
}

}  // namespace gpulint::python
