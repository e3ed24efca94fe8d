#include "analyzer/cpp/names.h"

#include "analyzer/core/torch_api.h"

#include <algorithm>
#include <array>

namespace gpulint::cpp {
namespace {

std::string_view strip_global(std::string_view name) {
  if (name.starts_with("::")) name.remove_prefix(2);
  return name;
}

// The namespaces LibTorch exports its functions from: torch::, at::, and c10:: for the core.
bool in_torch(std::string_view name, std::string_view tail) {
  name = strip_global(name);
  for (std::string_view ns : {"torch::", "at::"}) {
    if (name.size() == ns.size() + tail.size() && name.starts_with(ns) && name.ends_with(tail))
      return true;
  }
  return false;
}

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

}  // namespace

std::string_view last_component(std::string_view name) {
  size_t at = name.rfind("::");
  return at == std::string_view::npos ? name : name.substr(at + 2);
}

std::string_view fill_factory(std::string_view callee) {
  std::string_view tail = last_component(callee);
  return torch_api::is_fill_factory(tail) && in_torch(callee, tail) ? tail : std::string_view{};
}

bool is_module_class(std::string_view name) {
  name = strip_global(name);
  if (!name.starts_with("torch::nn::") && !name.starts_with("nn::")) return false;
  std::string_view tail = last_component(name);
  if (tail.empty() || tail.front() < 'A' || tail.front() > 'Z') return false;
  if (tail.ends_with("Options") || tail.ends_with("Impl") || tail == "Module" ||
      tail == "ModuleHolder" || tail == "AnyModule") {
    return false;
  }
  return name.find("::functional::") == std::string_view::npos;
}

bool is_loss_class(std::string_view name) {
  return is_module_class(name) && last_component(name).ends_with("Loss");
}

bool has_parameters(std::string_view module_class) {
  static constexpr std::array<std::string_view, 4> kContainers = {"Sequential", "ModuleList",
                                                                  "ModuleDict", "Functional"};
  const std::string_view tail = last_component(module_class);
  return !one_of(tail, kContainers) && !torch_api::is_parameterless_module(tail);
}

bool is_loss_function(std::string_view callee) {
  std::string_view tail = last_component(callee);
  return tail.ends_with("_loss") || tail == "cross_entropy" || tail == "binary_cross_entropy" ||
         tail == "binary_cross_entropy_with_logits" || tail == "kl_div";
}

bool is_console_stream(std::string_view name) {
  name = strip_global(name);
  static constexpr std::array<std::string_view, 6> kStreams = {
      "std::cout", "std::cerr", "std::clog", "cout", "cerr", "clog"};
  return one_of(name, kStreams);
}

bool is_printf(std::string_view callee) {
  callee = strip_global(callee);
  if (callee.starts_with("std::")) callee.remove_prefix(5);
  static constexpr std::array<std::string_view, 4> kPrintf = {"printf", "fprintf", "puts", "fputs"};
  return one_of(callee, kPrintf);
}

bool is_synchronize(std::string_view callee) {
  callee = strip_global(callee);
  return callee == "torch::cuda::synchronize" || callee == "at::cuda::device_synchronize" ||
         callee == "c10::cuda::device_synchronize" || callee == "cudaDeviceSynchronize";
}

bool is_empty_cache(std::string_view callee) {
  callee = strip_global(callee);
  return callee == "c10::cuda::CUDACachingAllocator::emptyCache";
}

bool is_dynamic_shape(std::string_view callee) {
  std::string_view tail = last_component(callee);
  // `repeat_interleave(x, 2)` has a static size; the tensor-repeats form is the method's.
  return tail != "repeat_interleave" && torch_api::is_dynamic_shape(tail) && in_torch(callee, tail);
}

bool is_make_data_loader(std::string_view callee) {
  callee = strip_global(callee);
  return callee == "torch::data::make_data_loader" || callee == "make_data_loader";
}

bool is_loader_options(std::string_view name) {
  name = strip_global(name);
  return name == "torch::data::DataLoaderOptions" || name == "DataLoaderOptions";
}

bool is_no_grad_guard(std::string_view type) {
  type = strip_global(type);
  static constexpr std::array<std::string_view, 8> kGuards = {
      "torch::NoGradGuard", "c10::NoGradGuard",     "at::NoGradGuard",   "NoGradGuard",
      "c10::InferenceMode", "torch::InferenceMode", "at::InferenceMode", "InferenceMode"};
  return one_of(type, kGuards);
}

bool is_autocast_enable(std::string_view callee) {
  callee = strip_global(callee);
  return callee == "at::autocast::set_enabled" || callee == "at::autocast::set_autocast_enabled";
}

}  // namespace gpulint::cpp
