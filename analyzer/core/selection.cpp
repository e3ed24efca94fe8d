#include "analyzer/core/selection.h"

#include <algorithm>
#include <stdexcept>

namespace gpulint {
namespace {

bool matches(std::string_view selector, std::string_view code) {
  return selector == "ALL" || code.starts_with(selector);
}

void check_known(std::span<const Rule* const> rules, const std::vector<std::string>& selectors) {
  for (const std::string& s : selectors) {
    bool any = std::any_of(rules.begin(), rules.end(),
                           [&](const Rule* r) { return matches(s, r->info.code); });
    if (!any) throw std::invalid_argument("unknown rule selector `" + s + "`");
  }
}

}  // namespace

std::vector<std::string> split_codes(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      std::string item = value.substr(start, comma - start);
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (!item.empty()) out.push_back(item);
      start = comma + 1;
    }
  }
  return out;
}

Selection Selection::parse(std::span<const Rule* const> rules,
                           const std::vector<std::string>& select,
                           const std::vector<std::string>& ignore) {
  check_known(rules, select);
  check_known(rules, ignore);
  Selection selection;
  for (const Rule* rule : rules) {
    bool on = select.empty() ? rule->info.default_on
                             : std::any_of(select.begin(), select.end(), [&](const std::string& s) {
                                 return matches(s, rule->info.code);
                               });
    for (const std::string& s : ignore) {
      if (matches(s, rule->info.code)) on = false;
    }
    if (on) selection.enabled_.push_back(rule);
  }
  return selection;
}

bool Selection::enabled(std::string_view code) const {
  return std::any_of(enabled_.begin(), enabled_.end(),
                     [&](const Rule* r) { return r->info.code == code; });
}

}  // namespace gpulint
