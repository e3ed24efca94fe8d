#include "doctor/arch_coverage.h"

#include <cctype>
#include <optional>
#include <string_view>

namespace gpulint::system {
namespace {

struct Arch {
  bool ptx = false;
  int major = 0;
  int minor = 0;
  bool exact = false;  // the 'a' suffix: features of this one capability only
};

std::optional<Arch> parse(std::string_view entry) {
  Arch arch;
  if (entry.starts_with("sm_")) {
    entry.remove_prefix(3);
  } else if (entry.starts_with("compute_")) {
    entry.remove_prefix(8);
    arch.ptx = true;
  } else {
    return std::nullopt;
  }
  if (!entry.empty() && entry.back() == 'a') arch.exact = true;
  // 'f' (family) code runs across the major like plain code; 'a' only where it was built.
  while (!entry.empty() && std::isalpha(static_cast<unsigned char>(entry.back()))) {
    entry.remove_suffix(1);
  }
  if (entry.size() < 2) return std::nullopt;
  int number = 0;
  for (char c : entry) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    number = number * 10 + (c - '0');
  }
  arch.major = number / 10;  // the last digit is the minor: sm_86 is 8.6, sm_120 is 12.0
  arch.minor = number % 10;
  return arch;
}

}  // namespace

ArchCoverage arch_coverage(const std::vector<std::string>& arch_list, int major, int minor) {
  ArchCoverage best = ArchCoverage::None;
  for (const std::string& entry : arch_list) {
    const std::optional<Arch> arch = parse(entry);
    if (!arch) continue;
    if (arch->ptx) {
      if (arch->major < major || (arch->major == major && arch->minor <= minor)) {
        best = ArchCoverage::PtxOnly;
      }
    } else if (arch->major == major &&
               (arch->exact ? arch->minor == minor : arch->minor <= minor)) {
      return ArchCoverage::Native;
    }
  }
  return best;
}

}  // namespace gpulint::system
