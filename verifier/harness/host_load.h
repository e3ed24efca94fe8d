#pragma once

// How much of the CPU other processes used while an experiment ran. Host-bound figures move
// with it: on a shared H100 host, a CPU GEMM read 27.7 ms in one run and 58.5 ms in the next,
// a minute apart, and PyTorch's own figures moved with the verifier's. A report says how busy
// the host was, so that a figure that moved can be told from a model that is wrong.

#include <optional>
#include <string_view>

namespace gpulint::verifier {

// CPU time in clock ticks, from /proc/stat's "cpu" line and /proc/self/stat.
struct CpuTicks {
  long long busy = 0;   // all CPUs: user, nice, system, irq, softirq
  long long steal = 0;  // all CPUs: taken by the hypervisor for other machines
  long long own = 0;    // this process: its threads and the children it waited for
};

// The "cpu" line of /proc/stat's text: busy and steal; nullopt when it is not there.
std::optional<CpuTicks> parse_proc_stat(std::string_view text);
// /proc/self/stat's text: utime + stime + cutime + cstime; nullopt when malformed.
std::optional<long long> parse_self_stat(std::string_view text);

// Other processes' CPU use over an interval, in cores (busy ticks less this process's, per
// second of wall time); steal in cores too. -1: not readable (no /proc).
struct HostLoad {
  double other_cores = -1;
  double steal_cores = -1;
};

HostLoad host_load_between(const CpuTicks& start, const CpuTicks& end, double wall_s,
                           long ticks_per_s);

// Reads both files now; nullopt where /proc is not there.
std::optional<CpuTicks> read_cpu_ticks();

// Starts at construction; load() covers the time since.
class HostLoadMeter {
 public:
  HostLoadMeter();
  HostLoad load() const;

 private:
  std::optional<CpuTicks> start_;
  double t0_;
};

}  // namespace gpulint::verifier
