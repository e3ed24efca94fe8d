#pragma once

#include <span>
#include <string_view>

#include "analyzer/core/rule.h"

namespace gpulint {

// The one table of rules, in code order.
std::span<const Rule* const> all_rules();
const Rule* find_rule(std::string_view code);

}  // namespace gpulint
