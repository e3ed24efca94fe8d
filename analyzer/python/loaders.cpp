// Data loaders and framework trainers: construction, resolved options, iteration.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

// The loader a name holds, directly or as `iter(loader)`; null for none, -1 for an iterator of
// a name that only looks like a loader.
const int32_t* Builder::loader_named(std::string_view name) const {
  if (auto it = loader_names_.find(name); it != loader_names_.end()) return &it->second;
  if (auto it = loader_iter_names_.find(name); it != loader_iter_names_.end()) return &it->second;
  return nullptr;
}

void Builder::link_loader(int32_t loop, int32_t loader) {
  Loop& l = m_.loops[loop];
  l.iterates_loader = true;
  if (std::find(l.loaders.begin(), l.loaders.end(), loader) == l.loaders.end())
    l.loaders.push_back(loader);
  m_.loaders[loader].iterated = true;
}

void Builder::hand_to_framework(Node arg) {
  std::string name = dotted(arg);
  if (auto it = loader_names_.find(name); it != loader_names_.end()) {
    m_.loaders[it->second].handed_to_trainer = true;
  } else if (is(arg, s_.call) && !m_.loaders.empty() &&
             m_.loaders.back().call.end <= span(arg).end &&
             span(arg).contains(m_.loaders.back().call)) {
    m_.loaders.back().handed_to_trainer = true;
  }
  // Known as a model only later, maybe (`net = Net()` of another module, `net.train()` after).
  if (!name.empty()) handed_to_framework_.insert(name);
  if (!name.empty() && !host_models_.empty()) host_models_.remove(derived_key(function_, name));
}

// `next(arg)`; `whole`: `first(arg)`, MONAI's `next(iter(arg))`.
void Builder::on_next(Node arg, bool whole) {
  std::string name = dotted(arg);
  std::string iterated = name;  // what `next` reads from: `data`, or `loader` of `iter(loader)`
  int32_t loader = -1;
  bool known = false;
  if (auto it = whole ? loader_iter_names_.end() : loader_iter_names_.find(name);
      it != loader_iter_names_.end()) {
    loader = it->second, known = true;
  } else if (whole || (is(arg, s_.call) && last_component(callee_name(arg)) == "iter")) {
    if (!whole) {
      Args a = arguments(arg);
      iterated = a.positional.empty() ? "" : dotted(a.positional.front());
    }
    if (auto it = loader_names_.find(iterated); it != loader_names_.end()) {
      loader = it->second, known = true;
    } else {
      known = looks_like_loader(iterated);
    }
    if (loop_stack_.empty() && loader >= 0) {
      m_.loaders[loader].read_once = true;
      return;
    }
  } else {
    known = looks_like_loader(name);
  }
  if (loop_stack_.empty() || loop_stack_.back().function != function_) return;
  int32_t loop = loop_stack_.back().loop;
  // `next(self.data)`: a caller elsewhere may say what the constructor was given.
  if (!iterated.empty()) note_iterated_parameters(loop, {iterated});
  if (!known) return;
  if (loader >= 0) {
    link_loader(loop, loader);
  } else {
    m_.loops[loop].iterates_loader = true;
  }
}

// Parameters of a module-level function that its loop iterates, and constructor parameters
// kept in attributes that a method's loop iterates, for callers elsewhere.
void Builder::note_iterated_parameters(int32_t loop, const std::vector<std::string_view>& names) {
  if (function_ < 0 || params_.empty()) return;
  const Function& f = m_.functions[function_];
  const bool module_level = m_.scopes[m_.scopes[f.scope].parent].kind == ScopeKind::Module;
  for (std::string_view name : names) {
    IteratedParameter p{{}, -1, {}, loop};
    if (module_level && params_.back().count(name)) {
      auto at = std::find(f.parameters.begin(), f.parameters.end(), name);
      p = {f.name, static_cast<int32_t>(at - f.parameters.begin()), std::string(name), loop};
    } else if (name.starts_with("self.") && !class_name_.empty()) {
      auto kept = constructor_attributes_.find(std::string(class_name_) + ":" + std::string(name));
      if (kept == constructor_attributes_.end()) continue;
      p = {std::string(class_name_), kept->second.first, kept->second.second, loop};
    } else {
      continue;
    }
    // A caller elsewhere gives it a loader: the loop iterates that loader.
    const auto& handed = inbound_.handed_parameters;
    if (std::any_of(handed.begin(), handed.end(), [&](const HandedParameter& h) {
          return h.what == Handed::Loader && h.function == p.callable &&
                 h.matches(p.position, p.name);
        }))
      m_.loops[loop].iterates_loader = true;
    m_.iterated_parameters.push_back(std::move(p));
  }
}

// `def load_data(): loader = DataLoader(...); while True: yield from loader`: the generator
// hands out the loader's batches, so what iterates it elsewhere iterates the loader, whichever
// branch built it.
void Builder::on_yield(Node n, int depth) {
  visit_children(n, depth);
  if (function_ < 0 || n.named_child_count() != 1) return;
  Node keyword = n.first_child().next_sibling();
  if (null(keyword) || std::string_view(keyword.type()) != "from") return;
  const std::string_view name = dotted_view(n.named_child(0));
  if (name.empty() || !loader_names_.count(name)) return;
  const std::string& fname = m_.functions[function_].name;
  for (const auto& [bound, loader, function] : loader_bindings_) {
    if (bound == name && function == function_) tuple_loader_functions_[fname].push_back(loader);
  }
}

void Builder::on_framework(Node n, std::string_view tail, const Args& args) {
  (void)n;
  framework_built_ = true;
  Node accelerator = keyword(args, "accelerator");
  std::string acc = string_value(accelerator);
  bool cpu = acc == "cpu" || acc == "mps";
  if (tail == "Accelerator") cpu = is(keyword(args, "cpu"), s_.true_);
  if (!cpu) m_.framework_gpu = true;
  Node precision = keyword(args, tail == "Accelerator" ? "mixed_precision" : "precision");
  if (!null(precision)) {
    std::string p =
        is(precision, s_.string) ? string_value(precision) : std::string(text(precision));
    if (p != "32" && p != "no" && p != "32-true" && p != "64" && p != "None")
      m_.file_level_amp = true;
  }
  // A Hugging Face Trainer takes its precision from `args`: read where they are built here
  // (`TrainingArguments(bf16=True)`, inline or bound to a name), unknown otherwise (a parameter,
  // a command-line parser's result), and an unknown setting may be on.
  if (tail == "Accelerator" || tail == "Fabric") return;
  const Node training_args = keyword(args, "args");
  if (null(training_args)) return;
  const Node built = unparen(training_args);
  std::string_view maker;
  if (is(built, s_.call)) {
    maker = callee_name(built);
  } else if (auto it = call_results_.find(dotted_view(built)); it != call_results_.end()) {
    maker = it->second;
  }
  const std::string_view made = last_component(maker);
  if (!made.ends_with("Arguments") && !made.ends_with("Config")) m_.file_level_amp = true;
}

// Keyword values from a `**kwargs` whose dict is built in this file. Returns false when the
// dict cannot be read.
bool Builder::splat_values(Node splat, std::vector<std::pair<std::string, Node>>& out, int depth) {
  splat = unparen(splat);
  if (null(splat) || depth > 4) return false;
  if (is(splat, s_.dictionary)) {
    bool ok = true;
    for_each_child(splat, [&](Node p) {
      if (is(p, s_.pair)) {
        std::string key = string_value(field(p, s_.f_key));
        if (key.empty())
          ok = false;
        else
          out.emplace_back(key, field(p, s_.f_value));
      } else if (!is(p, s_.comment)) {
        ok = false;
      }
    });
    return ok;
  }
  if (is(splat, s_.call) && callee_name(splat) == "dict") {
    Args a = arguments(splat);
    for (const auto& [k, v] : a.keywords) out.emplace_back(std::string(k), v);
    return a.positional.empty() && !a.list_splat && a.dict_splats.empty();
  }
  if (is(splat, s_.conditional_expression)) {
    // `{...} if use_cuda else {}`: the CUDA branch is the one that counts.
    Node first = splat.named_child(0), cond = splat.named_child(1);
    if (null(cond) || !is_cuda_condition(cond)) return false;
    return splat_values(first, out, depth + 1);
  }
  if (is(splat, s_.identifier)) {
    auto it = dicts_.find(text(splat));
    if (it == dicts_.end()) return false;
    for (const auto& entry : it->second) {
      if (null(entry.first) || !splat_values(entry.first, out, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

void Builder::on_loader(Node n, const Args& args) {
  Loader l;
  l.call = span(n);
  l.spelling = std::string(text(field(n, s_.f_function)));
  l.arguments = argument_list(n);
  l.scope = scope_;
  l.splat_unknown = args.list_splat;
  l.batch_sampler = !null(keyword(args, "batch_sampler"));
  std::vector<std::pair<std::string, Node>> kw;
  for (const auto& [k, v] : args.keywords) kw.emplace_back(std::string(k), v);
  for (Node splat : args.dict_splats) {
    std::vector<std::pair<std::string, Node>> more;
    if (splat_values(splat, more)) {
      kw.insert(kw.end(), more.begin(), more.end());
    } else {
      l.splat_unknown = true;
    }
  }
  // DataLoader(dataset, batch_size=1, shuffle, sampler, batch_sampler, num_workers, collate_fn,
  // pin_memory, ...)
  auto positional = [&](size_t index) -> Node {
    return index < args.positional.size() ? args.positional[index] : Node{};
  };
  auto value = [&](std::string_view name, size_t index) {
    for (auto it = kw.rbegin(); it != kw.rend(); ++it) {
      if (it->first == name) return resolve(it->second);
    }
    if (Node p = positional(index); !null(p)) return resolve(p);
    Value absent;
    if (l.splat_unknown) absent.state = Value::State::Unknown;
    return absent;
  };
  l.batch_size = value("batch_size", 1);
  if (l.batch_size.known() && l.batch_size.number == 1) {
    Node collate = positional(6);
    for (const auto& [k, v] : kw) {
      if (k == "collate_fn") collate = v;
    }
    l.items_are_batches = note_collate(static_cast<int32_t>(m_.loaders.size()), collate);
  }
  l.num_workers = value("num_workers", 5);
  l.pin_memory = value("pin_memory", 7);
  l.persistent_workers = value("persistent_workers", 99);
  Node dataset = args.positional.empty() ? keyword(args, "dataset") : args.positional.front();
  if (!null(dataset)) {
    l.dataset_on_device = moves_to_device(dataset) || on_device_names_.count(dotted(dataset)) > 0;
    // `DataLoader(TextDataset(...))`, or a name given such an instance: judged at the end,
    // when every class's __getitem__ has been read.
    std::string_view klass;
    if (is(dataset, s_.call)) {
      klass = last_component(callee_name(dataset));
    } else if (auto it = call_results_.find(dotted_view(dataset)); it != call_results_.end()) {
      klass = last_component(it->second);
    }
    if (!klass.empty())
      loader_datasets_.emplace_back(static_cast<int32_t>(m_.loaders.size()), std::string(klass));
  }
  // The update below sits in `if use_cuda:` when the loader is built under that branch.
  m_.loaders.push_back(std::move(l));
}

// `return seq.cuda()` in a dataset's __getitem__: its items are on the device already, so its
// loaders' batches are too (nothing to pin, and workers would need CUDA in forked processes).
void Builder::note_dataset_item(Node value) {
  if (class_name_.empty() || m_.functions[function_].name != "__getitem__") return;
  bool moved = false;
  const auto on_device = [&](Node v) {
    v = unparen(v);
    moved = moved || moves_to_device(v) || on_device_names_.count(dotted_view(v)) > 0;
  };
  if (is(value, s_.expression_list) || is(value, s_.tuple)) {
    for_each_child(value, on_device);
  } else {
    on_device(value);
  }
  if (moved) device_datasets_.add(class_name_);
}

// `collate_fn=lambda items: items[0]`, or a function or class (an instance's class) that does
// so, of this file or another: with batch size 1 the loader yields the dataset's items. True
// when that is known now; a function's is known once the file (and the engine) has said.
bool Builder::note_collate(int32_t loader, Node collate) {
  collate = unparen(collate);
  if (is(collate, s_.lambda)) {
    Node params = field(collate, s_.f_parameters);
    return !null(params) && params.named_child_count() == 1 &&
           first_item_of(field(collate, s_.f_body), text(params.named_child(0)));
  }
  if (!is(collate, s_.identifier) && !is(collate, s_.attribute)) return false;
  std::string callee(dotted_view(collate));
  if (auto it = call_results_.find(callee); it != call_results_.end()) callee = it->second;
  if (auto target = imported_target(callee))
    m_.collate_calls.push_back({target->first, target->second, callee});
  collates_.emplace_back(loader, std::move(callee));
  return false;
}

// `items[0]`, with `items` named `parameter`.
bool Builder::first_item_of(Node value, std::string_view parameter) const {
  value = unparen(value);
  if (!is(value, s_.subscript)) return false;
  Node index = field(value, s_.f_subscript);
  return text(field(value, s_.f_value)) == parameter && is(index, s_.integer) && text(index) == "0";
}

void Builder::mark_unwrapping_collates() {
  for (const auto& [loader, callee] : collates_) {
    const auto& elsewhere = inbound_.unwrapping_functions;
    if (unwrapping_functions_.count(callee) ||
        std::binary_search(elsewhere.begin(), elsewhere.end(), callee)) {
      m_.loaders[loader].items_are_batches = true;
    }
  }
}

// Datasets whose items are moved as they are read: by their class's __getitem__, or by a
// MONAI transform built in the file (which of the file's datasets it serves is not followed).
void Builder::mark_device_datasets() {
  for (const auto& [loader, klass] : loader_datasets_) {
    if (device_datasets_.count(klass)) m_.loaders[loader].dataset_on_device = true;
  }
  if (items_to_device_) {
    for (Loader& loader : m_.loaders) loader.dataset_on_device = true;
  }
}

// `deepspeed.initialize(model=net, config=ds_config)`: the engine it returns holds the model on
// the accelerator (call_places) and runs it in the precision of its config. A config dict built
// in the file says which, through its "fp16" / "bf16" sections (note_precision_setting); one read
// from a path or from the command line (`args=args` with `--deepspeed_config`) is not known here,
// and an unknown precision may be reduced.
void Builder::on_deepspeed(const Args& args) {
  if (Node model = keyword(args, "model"); !null(model)) hand_to_framework(model);
  Node config = keyword(args, "config");
  if (null(config)) config = keyword(args, "config_params");
  config = unparen(config);
  const bool built_here =
      is(config, s_.dictionary) || (is(config, s_.identifier) && dicts_.count(text(config)) > 0 &&
                                    (params_.empty() || !params_.back().count(text(config))));
  if (!built_here) m_.file_level_amp = true;
}

// `AutoModelForCausalLM.from_pretrained(name, dtype=torch.bfloat16)`: Hugging Face loads the
// weights in that dtype (`torch_dtype=` in older versions); "auto" or a variable may be a half
// dtype. Quantized loads (bitsandbytes, `quantization_config=` or `load_in_8bit=True`) run their
// matrix math in int8 or a half compute dtype: no FP32 training either.
void Builder::note_pretrained_precision(const Args& args) {
  Node dtype = keyword(args, "torch_dtype");
  if (null(dtype)) dtype = keyword(args, "dtype");
  if (!null(dtype) && !switched_off(dtype)) {
    const std::string_view spelled = last_component(text(unparen(dtype)));
    if (spelled != "float32" && spelled != "float") m_.file_level_amp = true;
  }
  if (loads_quantized(args)) m_.file_level_amp = true;
}

bool Builder::loads_quantized(const Args& args) const {
  const Node config = keyword(args, "quantization_config");
  if (!null(config) && !is(unparen(config), s_.none)) return true;
  for (std::string_view flag : {"load_in_8bit", "load_in_4bit"}) {
    const Node value = keyword(args, flag);
    if (!null(value) && !switched_off(value)) return true;
  }
  return false;
}

// `from_pretrained(name, device_map="cuda")` (or "auto", a rank, a variable): the weights are
// loaded onto the devices the map names; a quantized load is placed on the GPU by the library.
bool Builder::loads_placed(Node call, std::string_view callee) {
  if (last_component(callee) != "from_pretrained") return false;
  const Args args = arguments(call);
  const Node map = unparen(keyword(args, "device_map"));
  if (!null(map) && !is(map, s_.none) && !(is(map, s_.string) && string_value(map) == "cpu"))
    return true;
  return loads_quantized(args);
}

bool Builder::is_deepspeed_initialize(std::string_view callee) const {
  return last_component(callee) == "initialize" && imported_from(callee, "deepspeed");
}

// A DeepSpeed configuration written in the file: `"fp16": {"enabled": args.fp16}` (or bf16, or
// apex's "amp"), also as `config["bf16"] = {"enabled": True}` or under a key chosen at run time
// (`{dtype: {"enabled": True}}`, `dtype` one of them), runs the model in reduced precision
// unless `enabled` is literally False; a value gpulint cannot resolve counts as on, as every
// unresolved precision setting does.
void Builder::note_precision_setting(Node pair) {
  note_precision_section(field(pair, s_.f_key), unparen(field(pair, s_.f_value)));
}

void Builder::note_precision_section(Node key_node, Node value) {
  if (!is(value, s_.dictionary)) return;
  if (is(key_node, s_.string)) {
    if (text(key_node).size() > 8) return;  // "fp16" quoted
    const std::string key = string_value(key_node);
    if (key != "fp16" && key != "bf16" && key != "amp") return;
  } else if (!is(key_node, s_.identifier) ||
             text(key_node).find("dtype") == std::string_view::npos) {
    return;
  }
  for_each_child(value, [&](Node entry) {
    if (!is(entry, s_.pair) || string_value(field(entry, s_.f_key)) != "enabled") return;
    if (!is(unparen(field(entry, s_.f_value)), s_.false_)) m_.file_level_amp = true;
  });
}

}  // namespace gpulint::python
