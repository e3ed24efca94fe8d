#include "rules/registry.h"

#include <array>

namespace gpulint {
namespace rules {
extern const Rule GL000, GL101, GL102, GL103, GL104, GL201, GL202, GL301, GL303, GL401;
}  // namespace rules

std::span<const Rule* const> all_rules() {
  static constexpr std::array<const Rule*, 10> kRules = {
      &rules::GL000, &rules::GL101, &rules::GL102, &rules::GL103, &rules::GL104,
      &rules::GL201, &rules::GL202, &rules::GL301, &rules::GL303, &rules::GL401};
  return kRules;
}

const Rule* find_rule(std::string_view code) {
  for (const Rule* rule : all_rules()) {
    if (rule->info.code == code) return rule;
  }
  return nullptr;
}

}  // namespace gpulint
