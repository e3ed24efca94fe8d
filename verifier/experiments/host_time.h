#pragma once

// PyTorch's host time per call on top of the experiments' raw CUDA (harness/host_model.h):
// each experiment times the raw call it makes, and spins the host for what the same call costs
// a PyTorch program beyond it.

#include <cuda_runtime.h>
#include <sched.h>

#include <cstdio>
#include <functional>
#include <string>

#include "verifier/harness/host_model.h"

namespace gpulint::verifier {

// Busy-waits `us` microseconds: the host time Python and the dispatcher take around a call.
void spin_host(double us);

// Host time per call, in microseconds: the median over bursts of back-to-back calls, the
// stream drained between bursts (the probe's method, so the two are comparable).
double host_us_per_call(const std::function<void()>& call, cudaStream_t stream);

// What a PyTorch call costs the host beyond the raw CUDA call that does the same; zero where
// the raw call is as slow, and without torch.
struct Extras {
  double launch = 0;       // per kernel-launching op
  double item = 0;         // per .item(), beyond its readback
  double synchronize = 0;  // per torch.cuda.synchronize(), before it blocks
  double print = 0;        // per log line
};

// Times a launch, a 4-byte readback, a device sync and a log line to `sink` (none when null) on
// `stream`, and subtracts them from `model`'s figures.
Extras measure_extras(const HostModel& model, cudaStream_t stream, FILE* sink);

// "host time per PyTorch call added: launch +0.9 us, ..." or why none was.
std::string describe_extras(const HostModel& model, const Extras& extras);

// Keeps the calling thread on one core while alive, so that a host-bound figure does not move
// when the scheduler moves the thread: the last core it may use, as the cross-checks pin theirs
// (away from core 0, where interrupts are usually handled). Threads started meanwhile inherit
// the pin: experiments with worker threads do not use it.
class PinThread {
 public:
  PinThread();
  ~PinThread();
  PinThread(const PinThread&) = delete;
  PinThread& operator=(const PinThread&) = delete;

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

}  // namespace gpulint::verifier
