#pragma once

// The experiments, one per rule family, each in its own .cu file. Each fills `out` with its
// figures and throws CudaError (or any std::exception) when something fails; the runner
// catches it, so a failed experiment reports its error and the rest still run.

#include "verifier/harness/params.h"
#include "verifier/harness/report.h"

namespace gpulint::verifier {

void run_sync(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_dynamic(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_loading(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_transfer(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_placement(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_precision(const Params& params, const DeviceInfo& device, ExperimentResult& out);
void run_debug(const Params& params, const DeviceInfo& device, ExperimentResult& out);

}  // namespace gpulint::verifier
