#pragma once

// Whether a torch build's compiled architectures (torch.cuda.get_arch_list()) can run on a GPU
// of a given compute capability: the "no kernel image is available" failure, found ahead.

#include <string>
#include <vector>

namespace gpulint::system {

enum class ArchCoverage {
  Native,   // machine code (sm_XY) that this GPU runs as it is
  PtxOnly,  // only PTX (compute_XY) the driver must compile at the first launch
  None,     // nothing this GPU can run
};

// sm_XY runs on capability X.Z for Z >= Y (same major); sm_XYa only on X.Y exactly;
// compute_XY (PTX) on any capability >= X.Y.
ArchCoverage arch_coverage(const std::vector<std::string>& arch_list, int major, int minor);

}  // namespace gpulint::system
