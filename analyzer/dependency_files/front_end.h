#pragma once

#include <string_view>

#include "analyzer/core/step_model.h"

namespace gpulint::deps {

// Lowers a dependency file into the step model: CPU-only torch pins and `#` comments.
StepModel build_model(std::string_view text);

}  // namespace gpulint::deps
