#include "analyzer/core/torch_api.h"

#include <array>

#include "analyzer/core/word_list.h"

namespace gpulint::torch_api {
bool is_fill_factory(std::string_view op) {
  static constexpr std::array<std::string_view, 13> kFactories = {
      "zeros",    "ones",   "empty",    "full",     "rand", "randn", "randint",
      "randperm", "arange", "linspace", "logspace", "eye",  "normal"};
  return one_of(op, kFactories);
}

bool is_dynamic_shape(std::string_view op) {
  static constexpr std::array<std::string_view, 7> kOps = {
      "nonzero",    "argwhere",           "masked_select",    "unique",
      "unique_dim", "unique_consecutive", "repeat_interleave"};
  return one_of(op, kOps);
}

bool is_parameterless_module(std::string_view module_class) {
  static constexpr std::array<std::string_view, 16> kActivations = {
      "ReLU",       "ReLU6",     "LeakyReLU", "ELU",      "GELU",    "SiLU",
      "Mish",       "Hardswish", "Softplus",  "Tanh",     "Sigmoid", "Softmax",
      "LogSoftmax", "Dropout",   "Dropout1d", "Dropout2d"};
  static constexpr std::array<std::string_view, 16> kReshaping = {
      "Dropout3d", "MaxPool1d",       "MaxPool2d",        "MaxPool3d",
      "AvgPool1d", "AvgPool2d",       "AvgPool3d",        "Flatten",
      "Unflatten", "Identity",        "Upsample",         "PixelShuffle",
      "ZeroPad2d", "ReflectionPad2d", "ReplicationPad2d", "ConstantPad2d"};
  return one_of(module_class, kActivations) || one_of(module_class, kReshaping) ||
         module_class.ends_with("Loss") || module_class.starts_with("Adaptive");
}

}  // namespace gpulint::torch_api
