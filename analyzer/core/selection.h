#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/rule.h"

namespace gpulint {

// One source of rule selectors: a config file or the command line. Each selector is a code, a
// code prefix (`GL1`) or `ALL`, as Ruff reads them.
struct SelectionLayer {
  std::optional<std::vector<std::string>> select;  // replaces what the layers below chose
  std::vector<std::string> extend_select;          // adds
  std::vector<std::string> ignore;                 // removes
};

// Which rules run: the defaults, then each layer in order (config file, then command line).
class Selection {
 public:
  // Throws std::invalid_argument naming the selector that matches no rule.
  static Selection parse(std::span<const Rule* const> rules, const std::vector<std::string>& select,
                         const std::vector<std::string>& ignore);
  // As Ruff resolves them, an `ignore` of an earlier layer survives a later `select` unless that
  // select names the rule at least as specifically (config `ignore = ["GL206"]` holds against
  // `--select GL2`, but not against `--select GL206`).
  static Selection resolve(std::span<const Rule* const> rules,
                           const std::vector<SelectionLayer>& layers);
  const std::vector<const Rule*>& enabled() const { return enabled_; }
  bool enabled(std::string_view code) const;

 private:
  std::vector<const Rule*> enabled_;
};

// Splits "GL101,GL2" and repeated flags into selectors.
std::vector<std::string> split_codes(const std::vector<std::string>& values);
// A selector as written (`gl101 `), trimmed and in upper case: codes are read in any case.
std::string normal_selector(std::string_view text);
// Every code, prefix and `ALL`: what a selector may say, for "did you mean".
std::vector<std::string> selector_words(std::span<const Rule* const> rules);

}  // namespace gpulint
