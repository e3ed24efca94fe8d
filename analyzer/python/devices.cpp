// Devices: which device an expression names (CUDA, the host, or another accelerator), the moves
// to one, and where what the code builds is placed: moved, built in a device context, or
// returned placed.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

// `device = cuda` in one branch and `device = cpu` in the other: the name may be either, and
// a copy to it is not known to be a host copy.
void Builder::bind_device(std::string_view name, DeviceTarget target) {
  auto [it, inserted] = device_names_.try_emplace(std::string(name), DeviceName{target});
  if (inserted || it->second.target == target) return;
  // `cpu` in one branch and `mps` in the other: no CUDA either way.
  const bool cuda = on_cuda(target) || on_cuda(it->second.target);
  it->second.target = cuda ? DeviceTarget::MaybeCuda : DeviceTarget::Other;
}

// `"mps" if mps_ok else "cpu"`, with no CUDA string in it: Other when no choice is CUDA and one is
// another accelerator, Cpu when every choice is the host; MaybeCuda when a choice is not known.
DeviceTarget Builder::device_of_choice(Node conditional, int depth) const {
  if (depth > kMaxExprDepth) return DeviceTarget::MaybeCuda;
  bool other = false;
  for (Node choice : {conditional.named_child(0), conditional.named_child(2)}) {
    choice = unparen(choice);
    const DeviceTarget target = is(choice, s_.conditional_expression)
                                    ? device_of_choice(choice, depth + 1)
                                : is(choice, s_.string) ? device_of_string(string_value(choice))
                                                        : DeviceTarget::MaybeCuda;
    if (on_cuda(target)) return DeviceTarget::MaybeCuda;
    other = other || target == DeviceTarget::Other;
  }
  return other ? DeviceTarget::Other : DeviceTarget::Cpu;
}

DeviceTarget Builder::classify_device(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > 8) return DeviceTarget::MaybeCuda;
  if (is(n, s_.string)) return device_of_string(string_value(n));
  if (is(n, s_.call)) {
    const std::string_view callee = callee_name(n);
    if (is_xla_device_call(callee)) return DeviceTarget::Other;
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
// A project function that returns a device: of this file, or of another (the engine found it).
bool Builder::returns_device(std::string_view callee) const {
  if (callee.empty()) return false;
  if (device_functions_.count(callee)) return true;
  const auto& elsewhere = inbound_.device_functions;
  return std::binary_search(elsewhere.begin(), elsewhere.end(), callee);
}

// `device = x.device`, `_, h, w, device = *x.shape, x.device`: names given a tensor's own
// device, matched from the end past a leading `*` element.
void Builder::note_tensor_devices(const std::vector<std::string_view>& names, Node value) {
  const auto of_tensor = [&](Node v) {
    return is(v, s_.attribute) && text(field(v, s_.f_attribute)) == "device";
  };
  if (names.size() == 1) {
    if (of_tensor(value)) {
      tensor_devices_.add(names.front());
    } else if (!tensor_devices_.empty()) {
      tensor_devices_.remove(names.front());
    }
    return;
  }
  std::vector<Node> values;
  if (is(value, s_.expression_list) || is(value, s_.tuple)) {
    for (Node c = value.first_child(); !null(c); c = c.next_sibling()) {
      if (c.named() && !is(c, s_.comment)) values.push_back(c);
    }
  }
  // The first element starred: the pinned grammar gives `*x.shape` there its operand's type.
  const bool splat = !values.empty() && text(values.front()).starts_with('*');
  for (size_t i = 0; i < names.size(); ++i) {
    const size_t from_end = names.size() - i;
    const bool aligned = splat ? from_end < values.size() : values.size() == names.size();
    if (aligned && of_tensor(values[values.size() - from_end])) {
      tensor_devices_.add(names[i]);
    } else if (!tensor_devices_.empty()) {
      tensor_devices_.remove(names[i]);
    }
  }
}

// A device that follows a tensor (`x.device`, or a name given one): wherever it is, the new
// tensor goes, so it is no sign of CUDA by itself.
bool Builder::follows_tensor(Node device) const {
  device = unparen(device);
  if (is(device, s_.attribute)) return text(field(device, s_.f_attribute)) == "device";
  return is(device, s_.identifier) && tensor_devices_.count(text(device));
}

// `.to(dist_util.dev())`: an imported call whose result is a device if that module's function
// returns one, for the engine to find out.
void Builder::note_device_call(Node n) {
  n = unparen(n);
  if (!is(n, s_.call)) return;
  const std::string_view callee = callee_name(n);
  // Asked every round, known or not: the answer comes from the engine again each time.
  if (callee.empty() || last_component(callee) == "device" || device_functions_.count(callee))
    return;
  if (auto target = imported_target(callee))
    m_.device_calls.push_back({target->first, target->second, std::string(callee)});
}

bool Builder::is_device_expr(Node n) const {
  n = unparen(n);
  if (null(n)) return false;
  if (is(n, s_.string)) return names_device(string_value(n));
  if (is(n, s_.call)) {
    const std::string_view callee = callee_name(n);
    return last_component(callee) == "device" || is_xla_device_call(callee) ||
           returns_device(callee);
  }
  if (is(n, s_.identifier) || is(n, s_.attribute)) {
    const std::string_view name = dotted_view(n);
    if (device_names_.count(name)) return true;
    std::string_view tail = last_component(name);
    return looks_like_device(name) && tail.find("dtype") == std::string_view::npos;
  }
  if (is(n, s_.conditional_expression)) return contains_text(n, "cuda");
  return false;
}

void Builder::add_move(Node n, DeviceTarget target, std::string receiver, bool non_blocking) {
  m_.moves.push_back({span(n), scope_, target, std::move(receiver), non_blocking});
}

void Builder::on_device_move(Node n, Node recv, std::string_view receiver, DeviceTarget target,
                             bool non_blocking, std::string_view device) {
  add_move(n, target, std::string(receiver), non_blocking);
  if (function_ >= 0 && !receiver.empty()) moved_in_function_.add(derived_key(function_, receiver));
  if (target != DeviceTarget::Cpu && !host_models_.empty())
    host_models_.remove(derived_key(function_, receiver));
  // Another accelerator (MPS, XLA): placed there, but no CUDA copy for the rules to weigh.
  if (target == DeviceTarget::Other) {
    if (!receiver.empty() && model_names_.count(receiver)) m_.moved_models.emplace_back(receiver);
    return;
  }
  if (!loop_stack_.empty() && loop_stack_.back().function == function_ &&
      reads_cpu_batch(recv, loop_stack_.back())) {
    m_.batch_moves.push_back({span(n), scope_, loop_stack_.back().loop, non_blocking});
    const std::string_view root = root_identifier(recv);
    if (!root.empty()) loop_stack_.back().moved_batch.add(root);
  }
  if (!receiver.empty() && model_names_.count(receiver)) m_.moved_models.emplace_back(receiver);
  if (is(recv, s_.call)) {
    std::string factory(callee_name(recv));
    if (is_fill_factory(factory)) {
      FactoryMove fm;
      fm.span = span(n);
      fm.factory = span(recv);
      Node fargs = field(recv, s_.f_arguments);
      fm.factory_args = argument_list(recv);
      fm.move = {recv.end(), n.end()};
      fm.factory_name = factory;
      fm.device = std::string(device);
      fm.scope = scope_;
      bool has_device = !null(fargs) && contains_text(fargs, "device=");
      // `torch.zeros_like(t)` fills on t's device: only a t known to be on the host is filled
      // there and copied.
      if (factory.ends_with("_like")) {
        Node source = null(fargs) ? Node{} : unparen(fargs.named_child(0));
        const bool on_host = !null(source) && (holds_host_batch(source) || made_on_host(source) ||
                                               host_names_.count(dotted_view(source)));
        if (!on_host) has_device = true;
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

// `with torch.device("cuda"):`, `with init_on_device(device):`: a context whose modules and
// tensors are built on its device; none for `torch.cuda.device(i)` (which only picks the
// current CUDA device, the tensors still start on the host) and other contexts.
std::optional<DeviceTarget> Builder::context_device(Node call) {
  const std::string_view callee = callee_name(call);
  const std::string_view tail = last_component(callee);
  if (callee.ends_with("cuda.device")) return std::nullopt;
  Node device;
  if (tail == "device") {
    Node args = field(call, s_.f_arguments);
    device = null(args) ? Node{} : args.named_child(0);
  } else if (tail.find("device") != std::string_view::npos ||
             tail.find("init") != std::string_view::npos) {
    const Args args = arguments(call);
    device = keyword(args, "device");
    if (null(device) && !args.positional.empty()) device = args.positional.front();
  }
  if (null(device) || !is_device_expr(device)) return std::nullopt;
  return classify_device(device);
}

// `return Net().cuda()`, `return net` after `net.to(device)`, or a module built in a device
// context: the caller gets it on the device.
bool Builder::returns_placed(Node value) {
  if (is(value, s_.call) && call_places(value)) return true;
  if (is(value, s_.identifier)) {
    const std::string_view name = text(value);
    return on_device_names_.count(name) || moved_in_function_.count(derived_key(function_, name));
  }
  const Node call = under_mode_switches(value);
  const std::string_view m = method_of(call);
  if (m == "cuda") return true;
  if (m != "to" && m != "to_empty") return false;
  const Args args = arguments(call);
  Node device = args.positional.empty() ? keyword(args, "device") : args.positional.front();
  return !null(device) && is_device_expr(device) && classify_device(device) != DeviceTarget::Cpu;
}

// The call that a chain of dtype and mode switches is made on: `Net().to(dev)` of
// `Net().to(dev).half().eval()`; the value itself when it ends in none.
Node Builder::under_mode_switches(Node value) const {
  for (int d = 0; d < kMaxExprDepth && is(value, s_.call); ++d) {
    const std::string_view m = method_of(value);
    if (m != "half" && m != "bfloat16" && m != "float" && m != "eval" && m != "train") break;
    value = receiver_of(value);
  }
  return value;
}

// A fresh instance of a module class bound, in the same function and unconditionally, to a name
// that held a placed model: the name holds a model on the CPU from here on.
void Builder::note_rebound_model(std::string_view name, Node value, bool placed,
                                 bool unconditional) {
  const auto placed_before = [&] {
    return on_device_names_.count(name) > 0 ||
           std::any_of(m_.moves.begin(), m_.moves.end(), [&](const DeviceMove& move) {
             return move.target != DeviceTarget::Cpu && move.receiver == name;
           });
  };
  const std::string_view callee = is(value, s_.call) ? callee_name(value) : std::string_view{};
  const bool fresh_module = !callee.empty() && (module_classes_.count(last_component(callee)) > 0 ||
                                                is_module_constructor(callee));
  if (!placed && unconditional && fresh_module && placed_before()) {
    host_models_.add(derived_key(function_, name));
  } else if (!host_models_.empty()) {
    host_models_.remove(derived_key(function_, name));
  }
}

bool Builder::runs_on_host(std::string_view callee) const {
  return !host_models_.empty() && !callee.empty() &&
         host_models_.count(derived_key(function_, callee)) > 0;
}

// What a call returns is on a device: it runs in a device context, is a function of this file
// that returns it placed, is a function from elsewhere given a device (`load_model("base",
// device)`), which places what it builds there as far as this file can tell, or is a
// `TensorDataset` of tensors on the device (whose items are then on the device too).
bool Builder::call_places(Node call) {
  if (placing_context_ > 0) return true;
  const std::string_view callee = callee_name(call);
  if (callee.empty()) return false;
  if (is_deepspeed_initialize(callee) || loads_placed(call, callee)) return true;
  if (function_by_name_.count(callee)) return placed_functions_.count(callee) > 0;
  const auto& elsewhere = inbound_.placed_functions;
  if (std::binary_search(elsewhere.begin(), elsewhere.end(), callee)) return true;
  const Args args = arguments(call);
  if (last_component(callee) == "TensorDataset") {
    return !args.positional.empty() &&
           std::all_of(args.positional.begin(), args.positional.end(),
                       [&](Node a) { return on_device_names_.count(dotted_view(a)) > 0; });
  }
  return std::any_of(args.positional.begin(), args.positional.end(), [&](Node a) {
    return is_device_expr(a) && classify_device(a) != DeviceTarget::Cpu;
  });
}

}  // namespace gpulint::python
