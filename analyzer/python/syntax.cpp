// Reading syntax: names, chains, literals, and the names an expression binds or reads.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/core/torch_api.h"
#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

// An attribute chain of identifiers (`a.b.c`) as a view: into the source when the chain is
// written as one piece, as it nearly always is; otherwise into interned_, which keeps it while
// the Builder lives. Empty for anything else.
std::string_view Builder::dotted_view(Node n) const {
  const size_t length = dotted_parts(n, 0, nullptr);
  if (length == 0) return {};
  // The parts lie in the text in order, so the same length means nothing lies between them.
  const std::string_view t = text(n);
  if (t.size() == length) return t;
  std::string out;
  dotted_parts(n, 0, &out);
  return interned_.emplace_back(std::move(out));
}

// The length of `n` as a chain (its parts joined by dots), or 0 when it is none; its parts
// are appended to `out` when one is given.
size_t Builder::dotted_parts(Node n, int depth, std::string* out) const {
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

std::string_view Builder::method_of(Node call) const {
  Node fn = field(call, s_.f_function);
  if (!is(fn, s_.attribute)) return {};
  Node attr = field(fn, s_.f_attribute);
  return null(attr) ? std::string_view{} : text(attr);
}

Node Builder::receiver_of(Node call) const {
  Node fn = field(call, s_.f_function);
  return is(fn, s_.attribute) ? field(fn, s_.f_object) : Node{};
}

// dotted_view of the receiver of a method call whose callee_name and method_of are given: a
// chain callee is its receiver's chain and the method, so it is not spelt a second time.
std::string_view Builder::receiver_name(Node call, std::string_view callee,
                                        std::string_view method) const {
  if (callee.empty()) return dotted_view(receiver_of(call));
  return callee.substr(0, callee.size() - std::min(callee.size(), method.size() + 1));
}

// The name a chain starts from: `kwargs` of `kwargs.items()`, `batch` of `batch["x"].shape`.
std::string_view Builder::root_identifier(Node n) const {
  for (int d = 0; d < kMaxExprDepth; ++d) {
    n = unparen(n);
    if (is(n, s_.identifier)) return text(n);
    if (is(n, s_.call)) {
      n = field(n, s_.f_function);
    } else if (is(n, s_.attribute) || is(n, s_.subscript)) {
      n = field(n, is(n, s_.attribute) ? s_.f_object : s_.f_value);
    } else {
      break;
    }
  }
  return {};
}

std::string Builder::string_value(Node n) const {
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

ArgumentList Builder::argument_list(Node call) const {
  ArgumentList out;
  Node list = field(call, s_.f_arguments);
  if (!is(list, s_.argument_list)) return out;  // none, or a lone generator `f(x for x in y)`
  out.known = true;
  out.parens = span(list);
  for (Node c = list.first_child(); !c.null(); c = c.next_sibling()) {
    if (!c.named()) {
      if (text(c) == "," && !out.items.empty()) out.trailing_comma = span(c);
      continue;
    }
    if (is(c, s_.comment)) continue;
    Argument a{span(c), {}};
    if (is(c, s_.keyword_argument)) {
      a.keyword = std::string(text(field(c, s_.f_name)));
    } else if (is(c, s_.list_splat)) {
      a.keyword = "*";
    } else if (is(c, s_.dictionary_splat)) {
      a.keyword = "**";
    }
    out.items.push_back(std::move(a));
    out.trailing_comma = {};
  }
  return out;
}

Node Builder::unparen(Node n) const {
  for (int d = 0; is(n, s_.parenthesized_expression) && d < kMaxExprDepth; ++d) {
    n = n.named_child(0);
  }
  return n;
}

// Names bound by an assignment target or loop target, `self.x` included; views as
// dotted_view gives them.
void Builder::target_names(Node n, std::vector<std::string_view>& out, int depth) {
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
void Builder::read_names(Node n, std::vector<std::string_view>& out, int depth, bool divisors) {
  if (null(n) || depth > kMaxExprDepth || out.size() > 64) return;
  if (!divisors && is(n, s_.binary_operator)) {
    const Node right = unparen(field(n, s_.f_right));
    const std::string_view op = text(field(n, s_.f_operator));
    if ((op == "/" || op == "//") && is(right, s_.call) && callee_name(right) == "len")
      return read_names(field(n, s_.f_left), out, depth + 1, divisors);
  }
  if (is(n, s_.identifier)) {
    out.push_back(text(n));
    return;
  }
  if (is(n, s_.attribute)) {
    std::string_view name = dotted_view(n);
    if (!name.empty()) out.push_back(name);
  }
  if (is(n, s_.keyword_argument)) {
    read_names(field(n, s_.f_value), out, depth + 1, divisors);
    return;
  }
  for_each_child(n, [&](Node c) { read_names(c, out, depth + 1, divisors); });
}

bool Builder::moves_to_device(Node n) const {
  std::string_view t = text(n);
  return t.find(".to(") != std::string_view::npos || t.find(".cuda(") != std::string_view::npos ||
         t.find("to_device") != std::string_view::npos ||
         t.find("device=") != std::string_view::npos;
}

int64_t Builder::literal_number(Node n) const {
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

bool Builder::is_host_copy_call(Node n) {
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

// `t.cpu().numpy().flatten()`: a chain that copied its value to the host (or into numpy) on the
// way; what the rest of it reads is on the host.
bool Builder::copied_on_the_way(Node n) {
  for (int d = 0; d < kMaxExprDepth && !null(n); ++d) {
    n = unparen(n);
    if (is(n, s_.call)) {
      if (is_host_copy_call(n) || method_of(n) == "numpy") return true;
      n = receiver_of(n);
    } else if (is(n, s_.attribute) || is(n, s_.subscript)) {
      n = field(n, is(n, s_.attribute) ? s_.f_object : s_.f_value);
    } else {
      break;
    }
  }
  return false;
}

// Whether a call's callee comes, through this file's imports, from `package` or a module in it:
// `np.load` after `import numpy as np`, `first` after `from monai.utils import first`.
bool Builder::imported_from(std::string_view callee, std::string_view package) const {
  const auto found = import_by_local_.find(callee.substr(0, callee.find('.')));
  if (found == import_by_local_.end()) return false;
  const std::string_view module = m_.imports[found->second].module;
  return module.starts_with(package) &&
         (module.size() == package.size() || module[package.size()] == '.');
}

// A tensor the expression makes on the host: read from a file or NumPy, built from Python
// values without a device, or copied back.
bool Builder::made_on_host(Node value) const {
  if (!is(value, s_.call)) return false;
  // The method decides before the whole callee is spelt (this runs for every assignment).
  const std::string_view method = method_of(value);
  if (method == "cpu" || method == "numpy") return true;
  // `tokenizer(texts, return_tensors="pt")`: Hugging Face tokenizers and processors hand back
  // tensors made on the host (NumPy arrays for "np"), until `.to(device)` moves them.
  if (Node args = field(value, s_.f_arguments); !null(args)) {
    for (Node c = args.first_child(); !null(c); c = c.next_sibling()) {
      if (!is(c, s_.keyword_argument) || text(field(c, s_.f_name)) != "return_tensors") continue;
      const std::string kind = string_value(field(c, s_.f_value));
      if (kind == "pt" || kind == "np") return true;
    }
  }
  const std::string_view callee = callee_name(value);
  // `np.frombuffer(...)`, `np.stack(...)`: a NumPy array lives on the host.
  if (imported_from(callee, "numpy")) return true;
  // `torch.zeros(n)`: filled on the host where no device is named.
  // `torch.zeros(n, device="cpu")`: there too.
  const auto device_named_host = [&] {
    const Args args = const_cast<Builder*>(this)->arguments(value);
    const Node device = keyword(args, "device");
    return !null(device) && is_device_expr(device) && classify_device(device) == DeviceTarget::Cpu;
  };
  // After `torch.set_default_device("cuda")` they are filled on the GPU.
  if (torch_api::is_fill_factory(method) && !method.ends_with("_like") && is_fill_factory(callee)) {
    if (cuda_by_default_) return false;
    Node args = field(value, s_.f_arguments);
    return !null(args) && !contains_text(args, "**") &&
           (!contains_text(args, "device") || device_named_host());
  }
  if (method != "from_file" && method != "from_numpy" && method != "tensor" &&
      method != "as_tensor")
    return false;
  if (callee == "torch.from_file" || callee == "torch.from_numpy") return true;
  if (callee != "torch.tensor" && callee != "torch.as_tensor") return false;
  Node args = field(value, s_.f_arguments);
  return !null(args) && (!contains_text(args, "device") || device_named_host());
}

// A value on the host: made there, a name bound to one (or to a checkpoint read to the host),
// or a tensor method's result on one (`mask.sum()`) or a part of one (`ckpt["step"]`).
bool Builder::on_host(Node n, int depth) const {
  n = unparen(n);
  if (null(n) || depth > kMaxExprDepth) return false;
  if (is(n, s_.identifier) || is(n, s_.attribute)) {
    if (host_names_.count(dotted_view(n)) > 0) return true;
    // `outputs.data`, `w.T`: views of the same storage.
    if (!is(n, s_.attribute)) return false;
    const std::string_view a = text(field(n, s_.f_attribute));
    return (a == "data" || a == "T" || a == "mT") && on_host(field(n, s_.f_object), depth + 1);
  }
  if (is(n, s_.subscript)) return on_host(field(n, s_.f_value), depth + 1);
  // `full_lengths - completion_lengths` of host tensors, `labels_cpu != -100`: host operands,
  // or host operands and numbers.
  if (is(n, s_.binary_operator) || is(n, s_.comparison_operator)) {
    bool any = false;
    for (Node c = n.first_child(); !null(c); c = c.next_sibling()) {
      if (!c.named()) continue;
      // A loader batch never moved is a host operand (it stays no host name: moved later, the
      // name holds a device tensor).
      const bool host = on_host(c, depth + 1) || (is(c, s_.identifier) && holds_host_batch(c));
      if (!host && !is_scalar_expr(c, depth + 1)) return false;
      any = any || host;
    }
    return any;
  }
  if (!is(n, s_.call)) return false;
  if (made_on_host(n)) return true;
  const std::string_view callee = callee_name(n);
  // A model on the CPU computes there; so does a torch function of a host tensor
  // (`torch.max(outputs, 1)`), unless it is given a device.
  if (runs_on_host(callee)) return true;
  if (is_tensor_function(callee)) {
    const Args args = const_cast<Builder*>(this)->arguments(n);
    return !args.positional.empty() && null(keyword(args, "device")) &&
           on_host(args.positional.front(), depth + 1);
  }
  if ((!host_returns_.empty() || !inbound_.host_functions.empty()) && returns_host(callee))
    return true;
  const std::string_view method = method_of(n);
  if (method == "to") {
    // `.to(torch.long)`: a cast, which stays where the tensor is.
    const Args args = const_cast<Builder*>(this)->arguments(n);
    const Node target = args.positional.empty() ? Node{} : args.positional.front();
    // Only a dtype named as one: `.to(other)` takes other's device too.
    const std::string_view spelt = dotted_view(target);
    const bool dtype = spelt.starts_with("torch.") && !spelt.starts_with("torch.device") &&
                       spelt.find('.', 6) == std::string_view::npos;
    if (!dtype || !null(keyword(args, "device")) || args.list_splat || !args.dict_splats.empty())
      return false;
    return on_host(receiver_of(n), depth + 1);
  }
  return !method.empty() && method != "cuda" && is_tensor_method(method) &&
         on_host(receiver_of(n), depth + 1);
}

// A project function whose every return is on the host (`def to_cpu(t): return
// t.detach().cpu()`): of this file, defined above the call, or of another (the engine found it).
bool Builder::returns_host(std::string_view callee) const {
  if (callee.empty()) return false;
  if (host_returns_.count(callee) && !other_returns_.count(callee)) return true;
  const auto& elsewhere = inbound_.host_functions;
  return std::binary_search(elsewhere.begin(), elsewhere.end(), callee);
}

// `to_cpu(loss).item()`: whether the imported function returns a host copy is for the engine
// to find out. Asked every round, known or not: the answer comes from the engine each time.
void Builder::note_host_call(Node call) {
  const std::string_view callee = callee_name(call);
  if (callee.empty() || host_returns_.count(callee) || other_returns_.count(callee)) return;
  if (auto target = imported_target(callee))
    m_.host_calls.push_back({target->first, target->second, std::string(callee)});
}

}  // namespace gpulint::python
