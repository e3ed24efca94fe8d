#include "watch/sampler.h"

#include <limits>

namespace gpulint::system {
namespace {

double or_nan(const std::optional<double>& value) {
  return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

Sampler::Sampler(const ReadingSource& source, std::vector<GpuSeries> series,
                 std::chrono::milliseconds interval)
    : source_(source), interval_(interval) {
  trace_.interval_ms = static_cast<int>(interval.count());
  trace_.gpus = std::move(series);
}

Sampler::~Sampler() {
  if (thread_.joinable()) stop();
}

void Sampler::start() {
  start_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { loop(); });
}

Trace Sampler::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  return std::move(trace_);
}

void Sampler::loop() {
  // Deadlines on a fixed grid from the start, so slow NVML calls do not stretch the interval.
  auto next = start_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    sample(std::chrono::steady_clock::now());
    lock.lock();
    next += interval_;
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

void Sampler::sample(std::chrono::steady_clock::time_point now) {
  const std::chrono::duration<double, std::milli> since = now - start_;
  trace_.t_ms.push_back(since.count());
  for (GpuSeries& gpu : trace_.gpus) {
    const GpuReading reading = source_.read(gpu.index);
    gpu.utilization_percent.push_back(or_nan(reading.utilization_percent));
    gpu.memory_used_mib.push_back(or_nan(reading.memory_used_mib));
    gpu.sm_clock_mhz.push_back(or_nan(reading.sm_clock_mhz));
  }
}

}  // namespace gpulint::system
