#pragma once

// LibTorch names the C++ front end recognises, as users spell them. A spelling is compared
// after its leading `::` is dropped, so `::torch::zeros` and `torch::zeros` are one name.

#include <string_view>

namespace gpulint::cpp {

// `torch::zeros` -> `zeros` when it names a fill factory (GL303); empty otherwise.
std::string_view fill_factory(std::string_view callee);

// `torch::nn::Linear` -> true: an nn module class (not its Options, Impl or functional form).
bool is_module_class(std::string_view name);
// Modules without parameters: activations, pooling, dropout, losses, containers.
bool has_parameters(std::string_view module_class);
bool is_loss_class(std::string_view name);
// Calls whose result is a loss with autograd history: torch::nll_loss, F::cross_entropy, ...
bool is_loss_function(std::string_view callee);

bool is_console_stream(std::string_view name);  // std::cout, std::cerr, std::clog
bool is_printf(std::string_view callee);        // printf, std::printf, fprintf, puts

bool is_synchronize(std::string_view callee);    // torch::cuda::synchronize, cudaDeviceSynchronize
bool is_empty_cache(std::string_view callee);    // c10::cuda::CUDACachingAllocator::emptyCache
bool is_dynamic_shape(std::string_view callee);  // torch::nonzero, at::masked_select, ...
bool is_make_data_loader(std::string_view callee);
bool is_loader_options(std::string_view name);     // torch::data::DataLoaderOptions
bool is_no_grad_guard(std::string_view type);      // torch::NoGradGuard, c10::InferenceMode, ...
bool is_autocast_enable(std::string_view callee);  // at::autocast::set_enabled

// The part after the last `::`: `torch::nn::Linear` -> `Linear`.
std::string_view last_component(std::string_view name);

}  // namespace gpulint::cpp
