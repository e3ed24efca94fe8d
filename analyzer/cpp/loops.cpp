// Loops of the C++ front end's walk (builder.h): step loops, macro loops, iterables and guards.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "analyzer/cpp/builder.h"

namespace gpulint::cpp {

// A loop spanning `whole` with `header`, and its scope, opened: the condition and header run
// per iteration too, so they belong to it.
LoopState Builder::open_loop(Span whole, Span header) {
  Loop loop;
  loop.span = whole;
  loop.header = header;
  loop.function = function_;
  loop.never_step = in_module_method_;
  const int32_t index = static_cast<int32_t>(m_.loops.size());
  m_.loops.push_back(loop);
  m_.loops[index].scope = open(ScopeKind::Loop, index);
  LoopState state;
  state.loop = index;
  if (!loop_stack_.empty()) state.cpu_batch = loop_stack_.back().cpu_batch;
  return state;
}

void Builder::on_loop(TSNode n, int depth) {
  TSNode body = field(n, "body");
  uint32_t header_end = null(body) ? ts_node_end_byte(n) : ts_node_start_byte(body);
  if (is(n, "do_statement")) header_end = ts_node_start_byte(n) + 2;
  while (header_end > ts_node_start_byte(n) &&
         std::isspace(static_cast<unsigned char>(src_[header_end - 1])))
    --header_end;
  const ScopeId saved = scope_;
  LoopState state = open_loop(span(n), {ts_node_start_byte(n), header_end});
  const int32_t index = state.loop;
  if (is(n, "for_range_loop")) {
    TSNode right = field(n, "right");
    visit(right, depth + 1);
    note_iterable(index, right, field(n, "declarator"), state);
  } else if (is(n, "for_statement")) {
    TSNode init = field(n, "initializer");
    if (is(init, "declaration")) {
      std::vector<std::string> declared;
      for (uint32_t i = 0, c = named_count(init); i < c; ++i) {
        std::string name = declared_name(named(init, i));
        if (!name.empty()) declared.push_back(name);
      }
      counter_names_.insert(declared.begin(), declared.end());
      if (declared.size() == 1 && is_integer_type(field(init, "type")))
        m_.loops[index].counter = declared.front();
    }
    visit(init, depth + 1);
    visit(field(n, "condition"), depth + 1);
    visit(field(n, "update"), depth + 1);
  } else {
    visit(field(n, "condition"), depth + 1);
  }
  loop_stack_.push_back(std::move(state));
  // A body that always leaves the loop (`... break;` last) runs once: no step loop.
  uint32_t statements = is(body, "compound_statement") ? named_count(body) : 0;
  while (statements > 0 && is(named(body, statements - 1), "comment")) --statements;
  if (statements > 0) {
    TSNode last = named(body, statements - 1);
    if (is(last, "break_statement") || is(last, "return_statement") ||
        (is(last, "expression_statement") && named_count(last) > 0 &&
         is(named(last, 0), "throw_expression"))) {
      m_.loops[index].never_step = true;
    }
  }
  for (uint32_t i = 0; i < statements; ++i) {
    if (is(named(body, i), "comment")) continue;  // `{  // a note` on the header's line
    note_body_line(m_.loops[index], named(body, i));
    break;
  }
  if (!null(body)) visit(body, depth + 1);
  loop_stack_.pop_back();
  scope_ = saved;
}

// Loop::body_line and body_indent, when `first` (the body's first statement) begins its line.
void Builder::note_body_line(Loop& loop, TSNode first) const {
  const uint32_t begin = ts_node_start_byte(first);
  const size_t newline = src_.rfind('\n', begin == 0 ? 0 : begin - 1);
  if (begin == 0 || newline == std::string_view::npos) return;
  const std::string_view indent = src_.substr(newline + 1, begin - newline - 1);
  if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
  loop.body_line = static_cast<uint32_t>(newline + 1);
  loop.body_indent = std::string(indent);
}

// int, unsigned long, size_t, std::int64_t...: what `% N` takes (not `auto`, an iterator).
bool Builder::is_integer_type(TSNode type) const {
  const std::string spelled = compact(type);
  if (is(type, "sized_type_specifier")) return spelled.find("double") == std::string::npos;
  static const std::set<std::string, std::less<>> integers = {
      "int",      "long",          "short",     "unsigned",       "size_t",   "std::size_t",
      "int64_t",  "std::int64_t",  "int32_t",   "std::int32_t",   "uint64_t", "std::uint64_t",
      "uint32_t", "std::uint32_t", "ptrdiff_t", "std::ptrdiff_t", "int8_t",   "int16_t",
      "uint8_t",  "uint16_t"};
  return integers.count(spelled) > 0;
}

// `for (auto& batch : *loader)`: a loader the file builds, or a name that says it is one
// (a loader passed in as a parameter, as LibTorch's examples do).
void Builder::note_iterable(int32_t loop, TSNode right, TSNode declarator, LoopState& state) {
  std::vector<std::string> bound;
  binding_names(declarator, bound);
  note_iterated(loop, root_name(right), std::move(bound), state);
}

void Builder::note_iterated(int32_t loop, const std::string& name, std::vector<std::string> bound,
                            LoopState& state) {
  if (name.empty()) return;
  auto it = loader_names_.find(name);
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (it == loader_names_.end() && lower.find("loader") == std::string::npos) return;
  m_.loops[loop].iterates_loader = true;
  if (it != loader_names_.end()) {
    m_.loops[loop].loaders.push_back(it->second);
    m_.loaders[it->second].iterated = true;
  }
  for (std::string& b : bound) state.cpu_batch.insert(std::move(b));
}

// `FOR_EACH_BATCH(batch, loader) { ... }` reads to tree-sitter as a function definition
// (C++ has no nested ones), `REPEAT(10) { ... }` as a call and a block; Clang, when it ran,
// says whether a macro wrote a loop around the block.
const MacroLoop* Builder::macro_loop(TSNode block) const {
  if (resolution_ == nullptr || !is(block, "compound_statement")) return nullptr;
  auto it = resolution_->macro_loops.find(ts_node_start_byte(block));
  return it == resolution_->macro_loops.end() || !it->second.block ? nullptr : &it->second;
}

// `REPEAT(10) step();`: the invocation was blanked out before parsing (build_model), so the
// body reads as the statement it is, and Clang says a macro loops over it. The nodes inside
// that start where it does are not that body again.
const MacroLoop* Builder::macro_loop_statement(TSNode n) const {
  if (resolution_ == nullptr || !ts_node_is_named(n) || ts_node_start_byte(n) == open_statement_)
    return nullptr;
  auto it = resolution_->macro_loops.find(ts_node_start_byte(n));
  return it == resolution_->macro_loops.end() || it->second.block ? nullptr : &it->second;
}

void Builder::on_macro_loop(TSNode body, const MacroLoop& info, int depth) {
  const ScopeId saved = scope_;
  LoopState state =
      open_loop({info.header_begin, ts_node_end_byte(body)}, {info.header_begin, info.header_end});
  counter_names_.insert(info.counters.begin(), info.counters.end());
  note_iterated(state.loop, info.iterated, info.bound, state);
  loop_stack_.push_back(std::move(state));
  if (info.block) {
    visit_block(body, depth + 1);
  } else {
    const uint32_t saved_statement = open_statement_;
    open_statement_ = ts_node_start_byte(body);
    visit(body, depth + 1);
    open_statement_ = saved_statement;
  }
  loop_stack_.pop_back();
  scope_ = saved;
}

void Builder::binding_names(TSNode n, std::vector<std::string>& out, int depth) const {
  if (null(n) || depth > 20) return;
  if (is(n, "identifier")) {
    out.emplace_back(text(n));
    return;
  }
  for (uint32_t i = 0, c = named_count(n); i < c; ++i) binding_names(named(n, i), out, depth + 1);
}

// The value of a condition on a local constant (`bool cpu_only = true;` then
// `if (!cpu_only)`), when it is one.
std::optional<bool> Builder::constant_condition(TSNode condition) const {
  condition = unparen(condition);
  if (is(condition, "condition_clause") && named_count(condition) == 1)
    condition = unparen(named(condition, 0));
  if (is(condition, "unary_expression") && text(field(condition, "operator")) == "!") {
    const std::optional<bool> inner = constant_condition(field(condition, "argument"));
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  const std::optional<int64_t> value = integer(condition);
  return value ? std::optional<bool>(*value != 0) : std::nullopt;
}

void Builder::on_if(TSNode n, int depth) {
  TSNode condition = field(n, "condition");
  visit(condition, depth + 1);
  // A branch a local constant rules out never runs: its moves to CUDA do not make a CPU
  // program a CUDA one.
  if (const std::optional<bool> known = constant_condition(condition)) {
    TSNode taken = *known ? field(n, "consequence") : field(n, "alternative");
    if (!null(taken)) with_branch(taken, Guard::Data, depth);
    return;
  }
  const ScopeId saved = scope_;
  open(ScopeKind::Branch);
  const ScopeId branch = scope_;
  pending_guards_.emplace_back(branch, condition);
  visit(field(n, "consequence"), depth + 1);
  scope_ = saved;
  TSNode alternative = field(n, "alternative");
  if (!null(alternative)) with_branch(alternative, Guard::Data, depth);
}

// Decided at the end, once every counter (`++step` may come after the `if`) is known.
Guard Builder::classify_guard(TSNode condition) const {
  std::string_view s = text(condition);
  if (s.find("rank") != std::string_view::npos || s.find("is_main") != std::string_view::npos ||
      s.find("master") != std::string_view::npos) {
    return s.find('%') != std::string_view::npos ? Guard::Interval : Guard::Rank;
  }
  if (s.find('%') != std::string_view::npos) return Guard::Interval;
  bool compares = s.find("==") != std::string_view::npos || s.find('<') != std::string_view::npos ||
                  s.find('>') != std::string_view::npos;
  return compares && mentions_counter(condition, 0) ? Guard::Interval : Guard::Data;
}

bool Builder::mentions_counter(TSNode n, int depth) const {
  if (null(n) || depth > 50) return false;
  if (is(n, "identifier")) return counter_names_.count(std::string(text(n))) > 0;
  if (is(n, "call_expression")) return false;  // `loss.item<float>() < 0.1` is data
  for (uint32_t i = 0, c = named_count(n); i < c; ++i)
    if (mentions_counter(named(n, i), depth + 1)) return true;
  return false;
}

void Builder::note_counter(TSNode n) {
  std::string name = root_name(n);
  if (!name.empty() && !loop_stack_.empty()) counter_names_.insert(name);
}

}  // namespace gpulint::cpp
