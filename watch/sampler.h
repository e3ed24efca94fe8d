#pragma once

// Samples every GPU at a fixed interval on its own thread while the watched command runs.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "machine/reading_source.h"
#include "watch/trace.h"

namespace gpulint::system {

class Sampler {
 public:
  // `series` names the GPUs (index, name, memory); their sample columns are filled here.
  Sampler(const ReadingSource& source, std::vector<GpuSeries> series,
          std::chrono::milliseconds interval);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  // Stops the thread and hands over what it sampled.
  Trace stop();

 private:
  void loop();
  void sample(std::chrono::steady_clock::time_point now);

  const ReadingSource& source_;
  const std::chrono::milliseconds interval_;
  Trace trace_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gpulint::system
