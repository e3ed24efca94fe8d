#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/rule.h"

namespace gpulint {

// Which rules run: the defaults, then --select (replaces), then --ignore (removes), each a list
// of codes, code prefixes (`GL1`) or `ALL`, as Ruff reads them.
class Selection {
 public:
  // Throws std::invalid_argument naming the selector that matches no rule.
  static Selection parse(std::span<const Rule* const> rules, const std::vector<std::string>& select,
                         const std::vector<std::string>& ignore);
  const std::vector<const Rule*>& enabled() const { return enabled_; }
  bool enabled(std::string_view code) const;

 private:
  std::vector<const Rule*> enabled_;
};

// Splits "GL101,GL2" and repeated flags into selectors.
std::vector<std::string> split_codes(const std::vector<std::string>& values);

}  // namespace gpulint
