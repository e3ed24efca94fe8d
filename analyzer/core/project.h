#pragma once

// How `check`, `verify`, `profile` and the language server find their files and each file's
// rules: config files, ignore files and the command line, with the command line winning as in
// Ruff.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/core/config.h"
#include "analyzer/core/rule.h"
#include "analyzer/core/rule_set.h"
#include "analyzer/core/walker.h"

namespace gpulint {

struct ProjectOptions {
  std::optional<std::string> config;  // --config: this file governs every file
  SelectionLayer command_line;        // --select, --extend-select, --ignore
  bool no_ignore = false;             // --no-ignore: .gitignore and .ignore files do not count
  bool force_exclude = false;         // --force-exclude: also for paths named explicitly
};

class Project {
 public:
  // Throws ConfigError for an unreadable --config and std::invalid_argument for a selector
  // that matches no rule.
  // `rules`: every rule gpulint has (the registry's table), which must outlive the project.
  Project(std::span<const Rule* const> rules, ProjectOptions options);

  // Throws ConfigError for a malformed config file met on the way.
  WalkResult walk(const std::string& path);

  // Resolves every file's rules once, before the parallel lint. Throws ConfigError.
  void resolve(const std::vector<std::string>& files);
  // Thread-safe after resolve().
  const RuleSet* rule_set_for(const std::string& path) const;
  const ConfigFile* config_for(const std::string& path);

  // `--show-settings FILE`: the settings that apply to a file and where they came from.
  std::string show_settings(const std::string& path);

 private:
  std::span<const Rule* const> rules_;
  const RuleSet& rule_set(const std::string& path);

  ProjectOptions options_;
  ConfigResolver configs_;
  std::map<std::pair<const ConfigFile*, std::vector<bool>>, RuleSet> rule_sets_;
  std::unordered_map<std::string, const RuleSet*> by_path_;
};

}  // namespace gpulint
