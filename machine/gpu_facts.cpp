#include "machine/gpu_facts.h"

#include <fmt/format.h>

namespace gpulint::system {

std::string cuda_version_string(int encoded) {
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

}  // namespace gpulint::system
