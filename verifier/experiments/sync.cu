// sync (GL101-GL105): a step of K small kernels launched from the host, pipelined (the host
// runs ahead of the GPU) vs a 4-byte device-to-host read each step (what `.item()` does: a
// copy into a host variable and a stream sync), vs cudaDeviceSynchronize each step, vs the
// read plus formatting and writing a log line each step. Each call also costs the host what it
// costs a PyTorch program (host_time.h): the kernels are ops, the read an `.item()`. The extra
// time of `.item()` and `synchronize()` is spent before the blocking call, where Python and the
// dispatcher spend it, while the GPU still runs the step's kernels.

#include <cstdio>
#include <string>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/experiments/host_time.h"
#include "verifier/experiments/step_profiles.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

enum class Variant { Pipelined, Readback, DeviceSync, Print };

struct Sink {
  FILE* file;
  Sink() : file(std::fopen("/dev/null", "w")) {
    if (file == nullptr) throw std::runtime_error("cannot open /dev/null for the print variant");
  }
  ~Sink() { std::fclose(file); }
};

}  // namespace

void run_sync(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  PinThread pin;
  Stream stream;
  DeviceBuffer<int> value(1);
  GPULINT_CUDA(cudaMemset(value.get(), 0, sizeof(int)));
  const double cycles_per_us = spin_cycles_per_us(stream.get());
  Sink sink;
  const Extras extra = measure_extras(d.host, stream.get(), sink.file);
  const int k = p.kernels_per_step;

  for (const StepProfile& profile : kStepProfiles) {
    const long long cycles = static_cast<long long>(profile.kernel_us * cycles_per_us);
    const int steps = steps_per_sample(p.steps, k, profile.kernel_us);
    auto run = [&](Variant v) {
      return [&, v] {
        stream.sync();
        const double t0 = now_us();
        for (int s = 0; s < steps; ++s) {
          for (int i = 0; i < k; ++i) {
            spin_host(extra.launch);
            launch_spin(cycles, value.get(), stream.get());
          }
          if (v == Variant::Readback || v == Variant::Print) {
            spin_host(extra.item);
            int host = 0;  // pageable, as `.item()` copies into a stack variable
            GPULINT_CUDA(cudaMemcpyAsync(&host, value.get(), sizeof host, cudaMemcpyDeviceToHost,
                                         stream.get()));
            stream.sync();
            if (v == Variant::Print) {
              spin_host(extra.print);
              std::fprintf(sink.file, "step %d loss %.4f\n", s, host * 1e-6);
              std::fflush(sink.file);
            }
          } else if (v == Variant::DeviceSync) {
            spin_host(extra.synchronize);
            GPULINT_CUDA(cudaDeviceSynchronize());
          }
        }
        stream.sync();
        return (now_us() - t0) / steps;
      };
    };
    StableOptions options;
    options.budget_s = p.budget_s;
    const std::string id = profile.name;
    const std::string label = std::string(profile.name) + ": ";
    out.measurements.push_back(measure(id + ".pipelined", label + "pipelined", "us/step",
                                       run(Variant::Pipelined), options));
    out.measurements.push_back(measure(id + ".readback", label + "4-byte readback each step",
                                       "us/step", run(Variant::Readback), options));
    out.measurements.push_back(measure(id + ".device_sync",
                                       label + "cudaDeviceSynchronize each step", "us/step",
                                       run(Variant::DeviceSync), options));
    out.measurements.push_back(measure(id + ".print", label + "readback + log line each step",
                                       "us/step", run(Variant::Print), options));
    out.parameters.emplace_back(id + ".kernel_us", std::to_string(profile.kernel_us));
    out.parameters.emplace_back(id + ".steps_per_sample", std::to_string(steps));
  }
  out.parameters.emplace_back("kernels_per_step", std::to_string(k));
  out.notes.push_back("spin kernels calibrated at " +
                      std::to_string(static_cast<int>(cycles_per_us)) +
                      " SM cycles/us; the log line goes to /dev/null (a terminal costs more)");
  out.notes.push_back(describe_extras(d.host, extra));
}

}  // namespace gpulint::verifier
