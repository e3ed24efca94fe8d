#include "verifier/harness/host_load.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "verifier/harness/stable.h"

namespace gpulint::verifier {
namespace {

std::optional<std::string> slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::optional<CpuTicks> parse_proc_stat(std::string_view text) {
  // The aggregate line comes first: "cpu  user nice system idle iowait irq softirq steal ...".
  if (text.substr(0, 4) != "cpu ") return std::nullopt;
  std::istringstream line(std::string(text.substr(4, text.find('\n') - 4)));
  long long f[8] = {};
  for (long long& v : f) {
    if (!(line >> v)) return std::nullopt;
  }
  CpuTicks t;
  t.busy = f[0] + f[1] + f[2] + f[5] + f[6];
  t.steal = f[7];
  return t;
}

std::optional<long long> parse_self_stat(std::string_view text) {
  // The command name in parentheses may hold spaces: fields are counted after its last ')'.
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream rest(std::string(text.substr(close + 1)));
  std::string field;
  long long sum = 0;
  // Fields 3 (state) to 17 (cstime); utime, stime, cutime and cstime are 14 to 17.
  for (int n = 3; n <= 17; ++n) {
    if (!(rest >> field)) return std::nullopt;
    if (n >= 14) {
      try {
        sum += std::stoll(field);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return sum;
}

HostLoad host_load_between(const CpuTicks& start, const CpuTicks& end, double wall_s,
                           long ticks_per_s) {
  if (wall_s <= 0 || ticks_per_s <= 0) return {};
  const double per_s = 1.0 / (wall_s * static_cast<double>(ticks_per_s));
  const long long other = (end.busy - start.busy) - (end.own - start.own);
  return {std::max(0.0, static_cast<double>(other) * per_s),
          std::max(0.0, static_cast<double>(end.steal - start.steal) * per_s)};
}

std::optional<CpuTicks> read_cpu_ticks() {
  const std::optional<std::string> stat = slurp("/proc/stat");
  const std::optional<std::string> self = slurp("/proc/self/stat");
  if (!stat || !self) return std::nullopt;
  std::optional<CpuTicks> ticks = parse_proc_stat(*stat);
  const std::optional<long long> own = parse_self_stat(*self);
  if (!ticks || !own) return std::nullopt;
  ticks->own = *own;
  return ticks;
}

HostLoadMeter::HostLoadMeter() : start_(read_cpu_ticks()), t0_(monotonic_seconds()) {}

HostLoad HostLoadMeter::load() const {
  const double wall_s = monotonic_seconds() - t0_;
  const std::optional<CpuTicks> end = read_cpu_ticks();
  if (!start_ || !end) return {};
  return host_load_between(*start_, *end, wall_s, sysconf(_SC_CLK_TCK));
}

}  // namespace gpulint::verifier
