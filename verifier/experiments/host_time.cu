#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/host_time.h"
#include "verifier/harness/stats.h"

namespace gpulint::verifier {

void spin_host(double us) {
  if (us <= 0) return;
  const double until = now_us() + us;
  while (now_us() < until) {
  }
}

double host_us_per_call(const std::function<void()>& call, cudaStream_t stream) {
  constexpr int kCalls = 100, kBursts = 25;
  for (int i = 0; i < 3 * kCalls; ++i) call();
  GPULINT_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> per_call;
  for (int b = 0; b < kBursts; ++b) {
    GPULINT_CUDA(cudaStreamSynchronize(stream));
    const double t0 = now_us();
    for (int i = 0; i < kCalls; ++i) call();
    per_call.push_back((now_us() - t0) / kCalls);
    GPULINT_CUDA(cudaStreamSynchronize(stream));
  }
  return summarize(std::move(per_call)).median;
}

Extras measure_extras(const HostModel& model, cudaStream_t stream, FILE* sink) {
  Extras e;
  if (!model.measured()) return e;
  DeviceBuffer<int> value(1);
  GPULINT_CUDA(cudaMemsetAsync(value.get(), 0, sizeof(int), stream));
  const double launch = host_us_per_call([&] { launch_spin(0, value.get(), stream); }, stream);
  const double readback = host_us_per_call(
      [&] {
        int host = 0;
        GPULINT_CUDA(
            cudaMemcpyAsync(&host, value.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
        GPULINT_CUDA(cudaStreamSynchronize(stream));
      },
      stream);
  const double sync = host_us_per_call([] { GPULINT_CUDA(cudaDeviceSynchronize()); }, stream);
  if (sink != nullptr) {
    const double print = host_us_per_call(
        [&] {
          std::fprintf(sink, "step %d loss %.4f\n", 7, 0.1234e-6);
          std::fflush(sink);
        },
        stream);
    e.print = std::max(0.0, model.print_us - print);
  }
  e.launch = std::max(0.0, model.launch_us - launch);
  e.item = std::max(0.0, model.item_us - readback);
  e.synchronize = std::max(0.0, model.synchronize_us - sync);
  return e;
}

std::string describe_extras(const HostModel& model, const Extras& e) {
  if (!model.measured()) return "raw CUDA host times (no PyTorch host model: " + model.detail + ")";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "PyTorch host time added per call (%s, beyond the raw CUDA call): launch "
                "+%.1f us, .item() +%.1f us, synchronize +%.1f us, log line +%.1f us",
                model.detail.c_str(), e.launch, e.item, e.synchronize, e.print);
  return buf;
}

PinThread::PinThread() {
  if (pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &saved_)) cpu = c;
  }
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pinned_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

PinThread::~PinThread() {
  if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

}  // namespace gpulint::verifier
