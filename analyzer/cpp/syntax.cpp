// Syntax helpers of the C++ front end's walk (builder.h): text, spans, names and devices.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "analyzer/cpp/builder.h"

namespace gpulint::cpp {

bool Builder::mentions_libtorch(std::string_view src) {
  if (src.find("torch") != std::string_view::npos || src.find("ATen") != std::string_view::npos)
    return true;
  // `at::` and `c10::` as namespaces, not the end of another name (`cv::Mat::zeros`).
  for (std::string_view ns : {"at::", "c10::"}) {
    for (size_t at = src.find(ns); at != std::string_view::npos; at = src.find(ns, at + 1)) {
      const char before = at == 0 ? ' ' : src[at - 1];
      if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_') return true;
    }
  }
  return false;
}

const std::string* Builder::resolved(TSNode call) const {
  return resolution_ ? resolution_->callee(ts_node_start_byte(call), ts_node_end_byte(call))
                     : nullptr;
}

// Null-safe, as grammar fields are absent in broken or macro-heavy code.
std::string_view Builder::text(TSNode n) const {
  if (ts_node_is_null(n)) return {};
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return src_.substr(b, e - b);
}

Span Builder::span(TSNode n) {
  return ts_node_is_null(n) ? Span{} : Span{ts_node_start_byte(n), ts_node_end_byte(n)};
}

bool Builder::is(TSNode n, std::string_view type) {
  return !null(n) && std::string_view(ts_node_type(n)) == type;
}

TSNode Builder::field(TSNode n, const char* name) {
  if (ts_node_is_null(n)) return n;
  return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(strlen(name)));
}

uint32_t Builder::named_count(TSNode n) {
  return ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
}

ArgumentList Builder::argument_list(TSNode list) {
  ArgumentList out;
  if (!is(list, "argument_list")) return out;
  out.known = true;
  out.parens = span(list);
  for (uint32_t i = 0, c = ts_node_child_count(list); i < c; ++i) {
    TSNode child = ts_node_child(list, i);
    if (!ts_node_is_named(child)) {
      if (std::string_view(ts_node_type(child)) == "," && !out.items.empty())
        out.trailing_comma = span(child);
    } else if (!is(child, "comment")) {
      out.items.push_back({span(child), {}});
      out.trailing_comma = {};
    }
  }
  return out;
}

// Source text without whitespace: `torch :: zeros` and `torch::zeros` name one function.
std::string Builder::compact(TSNode n) const {
  std::string out;
  for (char c : text(n)) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out.push_back(c);
  }
  return out;
}

TSNode Builder::unparen(TSNode n) const {
  while (is(n, "parenthesized_expression") && named_count(n) == 1) n = named(n, 0);
  return n;
}

// The name a call is made through: `torch::zeros`, `printf`, `make_data_loader` (template
// arguments dropped); empty for method calls and anything else.
std::string Builder::callee_name(TSNode function) const {
  if (is(function, "template_function")) function = field(function, "name");
  if (is(function, "identifier") || is(function, "qualified_identifier")) {
    std::string name = compact(function);
    // `torch::data::make_data_loader<torch::data::samplers::SequentialSampler>`: the
    // template arguments are not the name.
    if (size_t lt = name.find('<'); lt != std::string::npos) name.resize(lt);
    return name;
  }
  return {};
}

// `x.item<float>()` -> `item`; `model->forward(x)` -> `forward`.
std::string_view Builder::method_name(TSNode function) const {
  if (!is(function, "field_expression")) return {};
  TSNode f = field(function, "field");
  // `x.template item<float>()` in a template: the `template` keyword wraps the name.
  if (is(f, "dependent_name") && named_count(f) == 1) f = named(f, 0);
  if (is(f, "template_method")) f = field(f, "name");
  return null(f) ? std::string_view{} : text(f);
}

// The plain name at the root of `a.b->c`, `(*a).b`, `a[0].b`; empty when there is none.
std::string Builder::root_name(TSNode n, int depth) const {
  if (null(n) || depth > 50) return {};
  n = unparen(n);
  if (is(n, "identifier") || is(n, "this")) return std::string(text(n));
  if (is(n, "field_expression")) return root_name(field(n, "argument"), depth + 1);
  if (is(n, "pointer_expression")) return root_name(field(n, "argument"), depth + 1);
  if (is(n, "subscript_expression")) return root_name(field(n, "argument"), depth + 1);
  return {};
}

// A call to resolve against the file's functions once they are all known, with the variable
// each argument starts from.
void Builder::add_pending_call(const std::string& callee, TSNode call, TSNode args, uint32_t argc) {
  std::vector<std::string> arguments;
  for (uint32_t i = 0; i < argc; ++i) arguments.push_back(root_name(named(args, i)));
  pending_calls_.push_back({callee, span(call), scope_, std::move(arguments)});
}

bool Builder::contains(TSNode n, std::string_view needle) const {
  return text(n).find(needle) != std::string_view::npos;
}

bool Builder::mentions_cuda(std::string_view s) {
  return s.find("kCUDA") != std::string_view::npos || s.find("\"cuda") != std::string_view::npos ||
         s.find("DeviceType::CUDA") != std::string_view::npos;
}

bool Builder::mentions_cpu(std::string_view s) {
  return s.find("kCPU") != std::string_view::npos || s.find("\"cpu") != std::string_view::npos ||
         s.find("DeviceType::CPU") != std::string_view::npos;
}

// Where `.to(arg)` sends a tensor; nullopt when `arg` is not a device (a dtype, options).
std::optional<DeviceTarget> Builder::device_of(TSNode arg) const {
  std::string_view s = text(arg);
  bool cuda = mentions_cuda(s), cpu = mentions_cpu(s);
  if (cuda && cpu) return DeviceTarget::MaybeCuda;
  if (cuda) return DeviceTarget::Cuda;
  if (cpu) return DeviceTarget::Cpu;
  std::string name = root_name(arg);
  if (auto it = device_names_.find(name); it != device_names_.end()) return it->second;
  if (name.find("device") != std::string::npos || name == "dev") return DeviceTarget::MaybeCuda;
  // `options.device`, `cfg->device`: a device held in a settings struct.
  if (is(arg, "field_expression") &&
      text(field(arg, "field")).find("device") != std::string_view::npos) {
    return cpu_fields_.count(std::string(text(field(arg, "field")))) ? DeviceTarget::Cpu
                                                                     : DeviceTarget::MaybeCuda;
  }
  return std::nullopt;
}

// `torch::DeviceType device = torch::kCPU;` in a settings struct, and nothing in the file
// assigns the field again (`options.device = torch::kCUDA;`): the device it holds is the CPU,
// whatever object it is read through.
void Builder::on_field_declaration(TSNode n) {
  TSNode value = field(n, "default_value");
  const std::string_view name = text(field(n, "declarator"));
  if (null(value) || name.find("device") == std::string_view::npos) return;
  const std::string_view v = text(value);
  if (mentions_cpu(v) && !mentions_cuda(v) && !member_assigned(name))
    cpu_fields_.insert(std::string(name));
}

// `.name = ...` or `->name = ...` anywhere in the file (a comparison `==` is not one).
bool Builder::member_assigned(std::string_view name) const {
  auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
    size_t b = at, e = at + name.size();
    while (b > 0 && space(src_[b - 1])) --b;
    const bool member = (b > 0 && src_[b - 1] == '.') || (b > 1 && src_.substr(b - 2, 2) == "->");
    if (!member || (e < src_.size() && identifier(src_[e]))) continue;
    while (e < src_.size() && space(src_[e])) ++e;
    if (e < src_.size() && src_[e] == '=' && (e + 1 == src_.size() || src_[e + 1] != '=')) {
      return true;
    }
  }
  return false;
}

ScopeId Builder::open(ScopeKind kind, int32_t index) {
  ScopeId s = m_.add_scope(kind, scope_, index);
  scope_ = s;
  return s;
}

// Tree-sitter trips over a macro-written loop's header (`REPEAT(10) {` reads as a call
// missing its `;`); where Clang says a loop is, that is not an error in the file.
bool Builder::in_macro_loop_header(uint32_t offset) const {
  if (resolution_ == nullptr) return false;
  return std::any_of(
      resolution_->macro_loops.begin(), resolution_->macro_loops.end(),
      [&](const auto& loop) { return loop.second.header_begin <= offset && offset <= loop.first; });
}

void Builder::note_first_error(TSNode root) {
  TSTreeCursor c = ts_tree_cursor_new(root);
  std::optional<TSNode> found;
  // Depth-first: the first ERROR or MISSING node in source order.
  for (bool more = true; more;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (ts_node_is_error(n) || ts_node_is_missing(n)) {
      if (!in_macro_loop_header(ts_node_start_byte(n))) {
        found = n;
        break;
      }
    } else if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&c)) {
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) {
        more = false;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&c);
  if (!found) return;
  m_.parse_errors.push_back({span(*found),
                             ts_node_is_missing(*found)
                                 ? std::string("missing `") + ts_node_type(*found) + "`"
                                 : std::string("unexpected syntax"),
                             /*in_source=*/false});
}

}  // namespace gpulint::cpp
