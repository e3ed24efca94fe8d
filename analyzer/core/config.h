#pragma once

// Config files: `[tool.gpulint]` in pyproject.toml, or a `.gpulint.toml`, found from each file
// upward with the nearest one winning, as Ruff finds its own.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/core/path_glob.h"
#include "analyzer/core/rule.h"
#include "analyzer/core/rule_set.h"
#include "analyzer/core/selection.h"

namespace gpulint {

// "FILE:LINE:COLUMN: what is wrong".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PerFileIgnore {
  PathGlob glob;
  bool negated = false;  // `!pattern`: the codes are ignored in files that do NOT match
  std::vector<std::string> codes;
};

// One config file as written; patterns are relative to `root`, the file's directory.
struct ConfigFile {
  std::filesystem::path path;
  std::filesystem::path root;
  SelectionLayer selection;
  std::vector<PerFileIgnore> per_file_ignores;
  std::vector<PathGlob> exclude;  // default_excludes() unless the file sets `exclude`
  bool default_exclude = true;
  std::vector<PathGlob> extend_exclude;
  std::optional<int64_t> small_batch_threshold;
  std::optional<bool> test_code;
};

// The folders every walk skips unless `exclude` replaces them (hidden ones such as .git and
// .venv, virtualenvs, caches and build output), as Ruff's default `exclude` does.
const std::vector<std::string>& default_excludes();

// Reads one config file: all of a .gpulint.toml, or the `[tool.gpulint]` table of any other
// file. nullopt: a pyproject.toml without that table (it is no gpulint config). Throws
// ConfigError for bad TOML, unknown keys, wrong types and selectors that match no rule.
std::optional<ConfigFile> load_config(const std::filesystem::path& file,
                                      std::span<const Rule* const> rules);
// The same for a config file's text, `file` naming it (its name says which kind it is).
std::optional<ConfigFile> parse_config(std::string_view text, const std::filesystem::path& file,
                                       std::span<const Rule* const> rules);

// Finds and caches the config governing each file. With an explicit `--config`, that one
// governs every file.
class ConfigResolver {
 public:
  // Throws ConfigError when the explicit config cannot be read.
  ConfigResolver(std::span<const Rule* const> rules,
                 std::optional<std::filesystem::path> explicit_config);
  // nullptr: no config applies (built-in defaults). Throws ConfigError for a malformed config
  // on the way up.
  const ConfigFile* for_directory(const std::filesystem::path& absolute_dir);
  const ConfigFile* for_file(const std::filesystem::path& absolute_file) {
    return for_directory(absolute_file.parent_path());
  }

 private:
  std::span<const Rule* const> rules_;
  std::unique_ptr<ConfigFile> explicit_;
  bool has_explicit_ = false;
  std::map<std::filesystem::path, const ConfigFile*> by_directory_;
  std::vector<std::unique_ptr<ConfigFile>> loaded_;
};

// Whether a walk skips this file or folder: the config's `exclude` (or the defaults) and its
// `extend-exclude`.
bool is_excluded(const ConfigFile* config, const std::filesystem::path& absolute);

// The rules and options for one file: the defaults, the config's selection, then the command
// line's, then the config's per-file-ignores. Throws std::invalid_argument for a command-line
// selector that matches no rule.
RuleSet resolve_rule_set(std::span<const Rule* const> rules, const ConfigFile* config,
                         const SelectionLayer& command_line,
                         const std::filesystem::path& absolute_file);

}  // namespace gpulint
