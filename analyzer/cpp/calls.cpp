// Calls of the C++ front end's walk (builder.h): LibTorch APIs, moves, modules and loaders.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "analyzer/cpp/builder.h"

namespace gpulint::cpp {

void Builder::on_call(TSNode n, int depth) {
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
  if (last_component(callee) == "set_enabled" && callee.find("AnomalyMode") != std::string::npos &&
      compact(args) == "(true)") {
    add_api(ApiKind::DetectAnomaly, n, compact(n));
  }
  if ((callee == "setenv" || callee == "::setenv") && contains(args, "\"CUDA_LAUNCH_BLOCKING\"") &&
      argc >= 2 && text(named(args, 1)) == "\"1\"") {
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

void Builder::on_method_call(TSNode n, TSNode function, std::string_view method, TSNode args,
                             int depth, const std::string* resolved_name) {
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
void Builder::on_module_method(TSNode n, TSNode function, std::string_view method, TSNode args,
                               int depth) {
  TSNode receiver = field(function, "argument");
  const std::string recv = root_name(receiver);
  const uint32_t argc = null(args) ? 0 : named_count(args);
  if (method == "step" && (optimizer_names_.count(recv) || recv.find("optim") != std::string::npos))
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
    if (auto it = loader_names_.find(recv); it != loader_names_.end() && is(receiver, "identifier"))
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

void Builder::on_move(TSNode n, TSNode function, DeviceTarget target, std::string device,
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

void Builder::note_model_inputs(TSNode args, const std::string& model) {
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

void Builder::add_sync(TSNode n, SyncKind kind, std::string spelling) {
  m_.syncs.push_back({kind, sync_span(n), scope_, std::move(spelling), in_output_});
}

// `loss.item<float>()` as a whole, but only `.item<float>()` of a longer chain
// (`torch::nll_loss(...)\n    .item<float>()`), so the finding points at the sync.
Span Builder::sync_span(TSNode call) const {
  TSNode function = field(call, "function");
  if (!is(function, "field_expression")) return span(call);
  TSNode receiver = field(function, "argument");
  if (!root_name(receiver).empty() && text(receiver).find('(') == std::string_view::npos)
    return span(call);
  TSNode op = field(function, "operator");
  return null(op) ? span(call) : Span{ts_node_start_byte(op), ts_node_end_byte(call)};
}

void Builder::add_api(ApiKind kind, TSNode n, std::string spelling) {
  ApiUse use{kind, span(n), scope_, kNoScope, std::move(spelling), {}, {}, {}, {}, {}};
  use.callee = span(field(n, "function"));
  use.written = compact(field(n, "function"));
  use.arguments = argument_list(field(n, "arguments"));
  m_.api_uses.push_back(std::move(use));
}

void Builder::add_module(TSNode n, const std::string& klass, TSNode args) {
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

int32_t Builder::add_loader(TSNode call, TSNode callee, TSNode args) {
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
std::optional<int64_t> Builder::integer(TSNode v) const {
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

Value Builder::value_of(TSNode v) const {
  Value out;
  out.span = span(v);
  out.state = Value::State::Unknown;
  if (auto n = integer(v)) {
    out.state = Value::State::Known;
    out.number = *n;
  }
  return out;
}

void Builder::set_option(Loader& l, std::string_view option, TSNode v) {
  if (option == "workers") l.num_workers = value_of(v);
  if (option == "batch_size") l.batch_size = value_of(v);
}

// `torch::data::DataLoaderOptions().batch_size(64).workers(2)`: `outer` grows over the chain
// and becomes the loader's span, as RULES.md points GL201/GL206 at the options expression.
int32_t Builder::note_options_chain(TSNode constructor) {
  if (auto it = loader_of_call_.find(ts_node_start_byte(constructor)); it != loader_of_call_.end())
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
void Builder::on_make_data_loader(TSNode n, TSNode args) {
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

}  // namespace gpulint::cpp
