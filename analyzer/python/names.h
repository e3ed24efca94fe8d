#pragma once

// Name tables of the Python front end: which spellings mean a factory, a loss module, a logger,
// a step counter. Pure functions of strings, so they are cheap to test and to extend.

#include <string_view>

#include "analyzer/core/step_model.h"

namespace gpulint::python {

bool is_fill_factory(std::string_view dotted);           // torch.zeros, torch.randn, ...
bool is_loss_constructor(std::string_view dotted);       // nn.CrossEntropyLoss, ...
bool is_parameterless_module(std::string_view dotted);   // nn.ReLU, nn.Dropout, ...
bool is_optimizer_constructor(std::string_view dotted);  // torch.optim.AdamW, optim.SGD, ...
bool is_functional_loss(std::string_view dotted);        // F.cross_entropy, ...
bool is_tensor_function(std::string_view dotted);    // torch.* and F.* calls that return tensors
bool is_tensor_method(std::string_view method);      // .sum(), .mean(), .to(), ...
bool is_logger_receiver(std::string_view receiver);  // logging, logger, self.log, ...
bool is_logging_method(std::string_view method);
bool is_metrics_method(std::string_view method);  // add_scalar, ...
bool is_rank_name(std::string_view name);         // rank, local_rank, master_process, ...
// `Tagger`, `models.Tagger`: a class by Python's naming (the last part capitalised).
bool names_class(std::string_view dotted);
bool looks_like_counter(std::string_view name);  // step, global_step, batch_idx, i, ...
bool looks_like_loader(std::string_view name);   // train_loader, dataloader, dl, ...
bool looks_like_device(std::string_view name);   // device, dev, args.device, ...
// A condition on a debugging option: `args.debug`, `cfg.detect_anomaly`, `DEBUG`.
bool names_debug_option(std::string_view condition);
// A keyword argument that switches reduced precision on: `use_fp16=`, `bf16=`, `amp=`.
bool names_precision_switch(std::string_view keyword);
// A device string: "cpu", "cuda:1", "mps", "xla", "meta"; MaybeCuda when it names none.
DeviceTarget device_of_string(std::string_view spelling);
bool names_device(std::string_view spelling);
// `xm.xla_device()`, `torch_xla.device()`: an XLA device.
bool is_xla_device_call(std::string_view callee);
bool is_module_container_iter(std::string_view text);  // self.layers, model.modules(), ...
bool is_lightning_hook(std::string_view method);
bool is_hf_trainer_hook(std::string_view method);
// Of the per-step hooks, those that evaluate (no backward runs in them).
bool is_evaluation_hook(std::string_view method);

// The last component of a dotted name: `torch.nn.Linear` -> `Linear`.
std::string_view last_component(std::string_view dotted);

}  // namespace gpulint::python
