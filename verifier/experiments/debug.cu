// debug (GL501): the same steps of K kernels as sync, launched asynchronously vs with a sync
// after every kernel, which is what CUDA_LAUNCH_BLOCKING=1 does to each launch (and close to
// what anomaly detection's per-op checks cost in waiting). Each launch and sync also costs the
// host what it costs a PyTorch program (host_time.h), a sync's before it blocks, while the
// kernel runs.

#include <string>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/experiments/host_time.h"
#include "verifier/experiments/step_profiles.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {

void run_debug(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  PinThread pin;
  Stream stream;
  DeviceBuffer<int> value(1);
  const Extras extra = measure_extras(d.host, stream.get(), nullptr);
  const double cycles_per_us = spin_cycles_per_us(stream.get());
  const int k = p.kernels_per_step;
  for (const StepProfile& profile : kStepProfiles) {
    const long long cycles = static_cast<long long>(profile.kernel_us * cycles_per_us);
    const int steps = steps_per_sample(p.steps, k, profile.kernel_us);
    auto run = [&](bool sync_each) {
      return [&, sync_each] {
        stream.sync();
        const double t0 = now_us();
        for (int s = 0; s < steps; ++s) {
          for (int i = 0; i < k; ++i) {
            spin_host(extra.launch);
            launch_spin(cycles, value.get(), stream.get());
            if (sync_each) {
              spin_host(extra.synchronize);
              stream.sync();
            }
          }
        }
        stream.sync();
        return (now_us() - t0) / steps;
      };
    };
    StableOptions options;
    options.budget_s = p.budget_s;
    const std::string id = profile.name;
    out.measurements.push_back(
        measure(id + ".async", id + ": asynchronous launches", "us/step", run(false), options));
    out.measurements.push_back(measure(id + ".sync_each", id + ": sync after every kernel",
                                       "us/step", run(true), options));
    out.parameters.emplace_back(id + ".kernel_us", std::to_string(profile.kernel_us));
  }
  out.parameters.emplace_back("kernels_per_step", std::to_string(k));
  out.notes.push_back(describe_extras(d.host, extra));
}

}  // namespace gpulint::verifier
