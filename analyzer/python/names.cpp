#include "analyzer/python/names.h"

#include "analyzer/core/torch_api.h"
#include "analyzer/core/word_list.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace gpulint::python {
namespace {

bool has_prefix_module(std::string_view dotted, std::string_view module) {
  // `torch.zeros`, but also `th.zeros` is not guessed: only spellings PyTorch documents.
  return dotted.size() > module.size() && dotted.starts_with(module) &&
         dotted[module.size()] == '.';
}

std::string_view lower_tail(std::string_view s) { return last_component(s); }

// ASCII only, inline: std::tolower is a locale-aware library call, and this runs for every name.
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_ci(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return ascii_lower(a) == ascii_lower(b); });
  return it != hay.end();
}

// `needle` as the start of a word of the name: at its start, after `_`, or where camelCase
// starts a word (`n_iters`, `globalIter`), not inside one (`criterion`, `discount`).
bool starts_word_ci(std::string_view hay, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    const bool word_start = i == 0 || hay[i - 1] == '_' ||
                            (std::isupper(static_cast<unsigned char>(hay[i])) &&
                             std::islower(static_cast<unsigned char>(hay[i - 1])));
    if (word_start && contains_ci(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

}  // namespace

std::string_view last_component(std::string_view dotted) {
  // memrchr: string_view::rfind steps back a byte at a time, and this runs for every call.
  const void* dot = dotted.empty() ? nullptr : memrchr(dotted.data(), '.', dotted.size());
  return dot == nullptr ? dotted : dotted.substr(static_cast<const char*>(dot) - dotted.data() + 1);
}

bool is_fill_factory(std::string_view dotted) {
  if (!has_prefix_module(dotted, "torch") || dotted.find('.', 6) != std::string_view::npos)
    return false;
  std::string_view op = last_component(dotted);
  // `torch.zeros_like(t)` fills on t's device; GL303 judges where t is.
  if (op.ends_with("_like")) op.remove_suffix(5);
  return torch_api::is_fill_factory(op);
}

bool is_loss_constructor(std::string_view dotted) {
  std::string_view tail = lower_tail(dotted);
  return tail.size() > 4 && tail.ends_with("Loss");
}

bool is_parameterless_module(std::string_view dotted) {
  return torch_api::is_parameterless_module(lower_tail(dotted));
}

bool is_optimizer_constructor(std::string_view dotted) {
  static constexpr std::array<std::string_view, 14> kOptimizers = {
      "SGD",   "Adam",  "AdamW", "Adagrad",    "Adadelta", "RMSprop",   "Adamax",
      "NAdam", "RAdam", "LBFGS", "SparseAdam", "Lion",     "Adafactor", "LAMB"};
  return one_of(lower_tail(dotted), kOptimizers);
}

bool is_functional_loss(std::string_view dotted) {
  std::string_view tail = lower_tail(dotted);
  bool functional = dotted.starts_with("F.") || dotted.starts_with("nn.functional.") ||
                    dotted.starts_with("torch.nn.functional.");
  return functional &&
         (tail.ends_with("loss") || tail == "cross_entropy" || tail == "binary_cross_entropy" ||
          tail == "binary_cross_entropy_with_logits" || tail == "kl_div");
}

bool is_tensor_function(std::string_view dotted) {
  if (dotted.starts_with("F.") || dotted.starts_with("torch.nn.functional.")) return true;
  if (!has_prefix_module(dotted, "torch")) return false;
  // `torch.Size` is a tuple of ints; `finfo` and `iinfo` describe a dtype.
  static constexpr std::array<std::string_view, 15> kNotTensors = {
      "device", "no_grad", "inference_mode",   "is_tensor", "manual_seed", "save",
      "load",   "compile", "set_grad_enabled", "autocast",  "Size",        "finfo",
      "iinfo",  "numel",   "get_default_dtype"};
  std::string_view rest = dotted.substr(6);
  // `torch.is_floating_point(t)` and the other predicates read metadata; `is_nonzero` a value.
  if (rest.starts_with("is_") && rest != "is_nonzero") return false;
  return rest.find('.') == std::string_view::npos && !one_of(rest, kNotTensors);
}

bool is_tensor_method(std::string_view method) {
  static constexpr std::array<std::string_view, 46> kMethods = {
      "any",         "all",     "sum",       "mean",        "max",       "min",        "std",
      "var",         "norm",    "abs",       "detach",      "clone",     "to",         "cuda",
      "float",       "half",    "double",    "long",        "bool",      "view",       "reshape",
      "flatten",     "squeeze", "unsqueeze", "permute",     "transpose", "contiguous", "softmax",
      "log_softmax", "argmax",  "argmin",    "exp",         "log",       "sqrt",       "pow",
      "matmul",      "mm",      "bmm",       "masked_fill", "gather",    "expand",     "repeat",
      "eq",          "ne",      "sigmoid",   "prod"};
  return one_of(method, kMethods);
}

bool is_logger_receiver(std::string_view receiver) {
  std::string_view tail = last_component(receiver);
  if (receiver == "self.log") return false;
  return tail == "logging" || tail == "log" || contains_ci(tail, "logger") || tail == "LOG";
}

bool is_logging_method(std::string_view method) {
  static constexpr std::array<std::string_view, 8> kMethods = {
      "debug", "info", "warning", "warn", "error", "critical", "exception", "log"};
  return one_of(method, kMethods);
}

bool is_metrics_method(std::string_view method) {
  static constexpr std::array<std::string_view, 7> kMethods = {
      "add_scalar", "add_scalars", "add_histogram", "add_image",
      "add_text",   "log_metric",  "log_metrics"};
  return one_of(method, kMethods);
}

bool is_rank_name(std::string_view name) {
  // `is_root_worker()`: the root rank, as MPI-style backends name it; `is_global_zero`:
  // Lightning's trainer and Fabric.
  static constexpr std::array<std::string_view, 18> kNames = {"rank",
                                                              "local_rank",
                                                              "global_rank",
                                                              "RANK",
                                                              "LOCAL_RANK",
                                                              "master_process",
                                                              "is_master",
                                                              "is_main_process",
                                                              "main_process",
                                                              "is_main",
                                                              "is_local_main_process",
                                                              "is_world_process_zero",
                                                              "get_rank",
                                                              "is_rank_zero",
                                                              "is_global_zero",
                                                              "is_root",
                                                              "is_root_worker",
                                                              "is_root_process"};
  return one_of(last_component(name), kNames);
}

bool names_class(std::string_view dotted) {
  const std::string_view tail = last_component(dotted);
  return !tail.empty() && std::isupper(static_cast<unsigned char>(tail.front()));
}

bool looks_like_counter(std::string_view name) {
  std::string_view tail = last_component(name);
  static constexpr std::array<std::string_view, 8> kShort = {"i",  "j", "k",   "n",
                                                             "it", "t", "idx", "epoch"};
  return one_of(tail, kShort) || contains_ci(tail, "step") || starts_word_ci(tail, "iter") ||
         contains_ci(tail, "idx") || contains_ci(tail, "batch_i") || starts_word_ci(tail, "count");
}

bool looks_like_loader(std::string_view name) {
  std::string_view tail = last_component(name);
  return contains_ci(tail, "loader") || tail == "dl" || tail.ends_with("_dl") ||
         tail.starts_with("dl_");
}

bool looks_like_device(std::string_view name) {
  std::string_view tail = last_component(name);
  return tail == "dev" || contains_ci(tail, "device") || tail == "gpu" || tail == "cuda";
}

bool names_precision_switch(std::string_view keyword) {
  static constexpr std::array<std::string_view, 10> kSwitches = {
      "fp16", "bf16",    "use_fp16",        "use_bf16",
      "amp",  "use_amp", "mixed_precision", "use_mixed_precision",
      "half", "use_half"};
  return one_of(keyword, kSwitches);
}

bool names_debug_option(std::string_view condition) {
  return contains_ci(condition, "debug") || contains_ci(condition, "anomal");
}

DeviceTarget device_of_string(std::string_view spelling) {
  const std::string_view type = spelling.substr(0, spelling.find(':'));
  if (type == "cpu") return DeviceTarget::Cpu;
  if (type.starts_with("cuda")) return DeviceTarget::Cuda;
  static constexpr std::array<std::string_view, 7> kOther = {"mps", "xla", "meta", "xpu",
                                                             "hpu", "npu", "mtia"};
  return one_of(type, kOther) ? DeviceTarget::Other : DeviceTarget::MaybeCuda;
}

bool names_device(std::string_view spelling) {
  return spelling.starts_with("cuda") || device_of_string(spelling) != DeviceTarget::MaybeCuda;
}

bool is_xla_device_call(std::string_view callee) {
  return last_component(callee) == "xla_device" || callee == "torch_xla.device";
}

bool is_module_container_iter(std::string_view text) {
  static constexpr std::array<std::string_view, 8> kMethods = {
      ".modules()",       ".children()",       ".parameters()", ".named_parameters()",
      ".named_modules()", ".named_children()", ".param_groups", ".buffers()"};
  for (std::string_view m : kMethods) {
    if (text.find(m) != std::string_view::npos) return true;
  }
  std::string_view tail = last_component(text);
  return text.starts_with("self.") &&
         (tail == "layers" || tail == "blocks" || tail == "h" || tail == "convs" ||
          contains_ci(tail, "layer") || contains_ci(tail, "block") || contains_ci(tail, "heads"));
}

bool is_lightning_hook(std::string_view method) {
  static constexpr std::array<std::string_view, 6> kHooks = {
      "training_step", "validation_step",    "test_step",
      "predict_step",  "on_train_batch_end", "on_validation_batch_end"};
  return one_of(method, kHooks);
}

bool is_hf_trainer_hook(std::string_view method) {
  return method == "training_step" || method == "compute_loss" || method == "prediction_step";
}

bool is_evaluation_hook(std::string_view method) {
  static constexpr std::array<std::string_view, 5> kHooks = {
      "validation_step", "test_step", "predict_step", "on_validation_batch_end", "prediction_step"};
  return one_of(method, kHooks);
}

}  // namespace gpulint::python
