#include "rules/registry.h"

#include <algorithm>
#include <vector>

namespace gpulint {
namespace rules {
// One line per rule, in code order.
extern const Rule GL000;
extern const Rule GL001;
extern const Rule GL002;
extern const Rule GL101;
extern const Rule GL102;
extern const Rule GL103;
extern const Rule GL104;
extern const Rule GL105;
extern const Rule GL106;
extern const Rule GL107;
extern const Rule GL201;
extern const Rule GL202;
extern const Rule GL203;
extern const Rule GL204;
extern const Rule GL205;
extern const Rule GL206;
extern const Rule GL301;
extern const Rule GL302;
extern const Rule GL303;
extern const Rule GL304;
extern const Rule GL401;
extern const Rule GL402;
extern const Rule GL403;
extern const Rule GL404;
extern const Rule GL405;
extern const Rule GL501;
extern const Rule GL502;
extern const Rule GL503;
extern const Rule GL504;
extern const Rule GL505;
extern const Rule GL506;
extern const Rule GL507;
extern const Rule GL508;
extern const Rule GL509;
}  // namespace rules

std::span<const Rule* const> all_rules() {
  static const std::vector<const Rule*> kRules = [] {
    std::vector<const Rule*> rules = {
        &rules::GL000, &rules::GL001, &rules::GL002, &rules::GL101, &rules::GL102, &rules::GL103,
        &rules::GL104, &rules::GL105, &rules::GL106, &rules::GL107, &rules::GL201, &rules::GL202,
        &rules::GL203, &rules::GL204, &rules::GL205, &rules::GL206, &rules::GL301, &rules::GL302,
        &rules::GL303, &rules::GL304, &rules::GL401, &rules::GL402, &rules::GL403, &rules::GL404,
        &rules::GL405, &rules::GL501, &rules::GL502, &rules::GL503, &rules::GL504, &rules::GL505,
        &rules::GL506, &rules::GL507, &rules::GL508, &rules::GL509,
    };
    std::sort(rules.begin(), rules.end(),
              [](const Rule* a, const Rule* b) { return a->info.code < b->info.code; });
    return rules;
  }();
  return kRules;
}

const Rule* find_rule(std::string_view code) {
  for (const Rule* rule : all_rules()) {
    if (rule->info.code == code) return rule;
  }
  return nullptr;
}

}  // namespace gpulint
