#pragma once

// The torch operations both front ends recognise, by their unqualified name (`zeros` for
// `torch.zeros` and `torch::zeros`): one table each, so Python and C++ agree on them.

#include <string_view>

namespace gpulint::torch_api {

// Factories that fill a new tensor where they run: `zeros`, `randn`, `arange`, ... (GL303).
bool is_fill_factory(std::string_view op);

// Operations whose output size depends on the data, so the host must learn it (GL106):
// `nonzero`, `masked_select`, `unique`, ... (`repeat_interleave` only with tensor repeats,
// which the front ends judge).
bool is_dynamic_shape(std::string_view op);

// Module classes without parameters of their own (activations, pooling, dropout, resampling,
// padding, losses): `ReLU`, `Upsample`, ... (GL503, and what is no model). Containers are not
// among them: what they hold has parameters.
bool is_parameterless_module(std::string_view module_class);

}  // namespace gpulint::torch_api
