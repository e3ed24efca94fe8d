#pragma once

// The shim's Python source (profile/shim/sitecustomize.py), compiled into gpulint so that
// `gpulint profile` needs no installed data files: it writes the shim into a private directory
// for each run.

#include <string_view>

namespace gpulint::profile {

std::string_view shim_source();

}  // namespace gpulint::profile
