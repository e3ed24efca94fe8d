#include "analyzer/core/project.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

namespace gpulint {
namespace fs = std::filesystem;
namespace {

fs::path absolute_of(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (!absolute.has_filename() && absolute.has_relative_path()) absolute = absolute.parent_path();
  return absolute;
}

std::optional<fs::path> as_path(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return fs::path(*s);
}

std::string list(const std::vector<std::string>& items) {
  return items.empty() ? "[]" : fmt::format("[{}]", fmt::join(items, ", "));
}

std::string list(const std::vector<PathGlob>& globs) {
  std::vector<std::string> patterns;
  for (const PathGlob& g : globs) patterns.push_back(g.pattern());
  return list(patterns);
}

}  // namespace

Project::Project(std::span<const Rule* const> rules, ProjectOptions options)
    : rules_(rules), options_(std::move(options)), configs_(rules_, as_path(options_.config)) {
  Selection::resolve(rules_, {options_.command_line});  // names a bad selector now
}

WalkResult Project::walk(const std::string& path) {
  WalkOptions walk;
  walk.respect_ignore_files = !options_.no_ignore;
  walk.force_exclude = options_.force_exclude;
  walk.excluded = [this](const fs::path& absolute) {
    return is_excluded(configs_.for_file(absolute), absolute);
  };
  return collect_files({path}, walk);
}

const ConfigFile* Project::config_for(const std::string& path) {
  return configs_.for_file(absolute_of(path));
}

const RuleSet& Project::rule_set(const std::string& path) {
  const fs::path absolute = absolute_of(path);
  const ConfigFile* config = configs_.for_file(absolute);
  std::vector<bool> matched;
  if (config != nullptr) {
    for (const PerFileIgnore& entry : config->per_file_ignores) {
      matched.push_back(entry.glob.matches(absolute) != entry.negated);
    }
  }
  auto key = std::make_pair(config, std::move(matched));
  auto found = rule_sets_.find(key);
  if (found == rule_sets_.end()) {
    found = rule_sets_
                .emplace(std::move(key),
                         resolve_rule_set(rules_, config, options_.command_line, absolute))
                .first;
  }
  return found->second;
}

void Project::resolve(const std::vector<std::string>& files) {
  for (const std::string& file : files) by_path_[file] = &rule_set(file);
}

const RuleSet* Project::rule_set_for(const std::string& path) const {
  auto found = by_path_.find(path);
  return found == by_path_.end() ? nullptr : found->second;
}

std::string Project::show_settings(const std::string& path) {
  const fs::path absolute = absolute_of(path);
  const ConfigFile* config = configs_.for_file(absolute);
  const RuleSet& rules = rule_set(path);
  std::string out = fmt::format("Settings for {}\n", path);
  if (config == nullptr) {
    out += "  config file: none (built-in defaults)\n";
  } else {
    out += fmt::format("  config file: {}{}\n", config->path.string(),
                       options_.config ? " (--config)" : "");
    const SelectionLayer& s = config->selection;
    out += fmt::format("  select: {}\n", s.select ? list(*s.select) : "(the defaults)");
    out += fmt::format("  extend-select: {}\n", list(s.extend_select));
    out += fmt::format("  ignore: {}\n", list(s.ignore));
    for (const PerFileIgnore& entry : config->per_file_ignores) {
      const bool applies = entry.glob.matches(absolute) != entry.negated;
      out += fmt::format("  per-file-ignores: \"{}{}\" = {} ({})\n", entry.negated ? "!" : "",
                         entry.glob.pattern(), list(entry.codes),
                         applies ? "applies to this file" : "does not apply");
    }
    out += fmt::format("  exclude: {}{}\n", list(config->exclude),
                       config->default_exclude ? " (the defaults)" : "");
    out += fmt::format("  extend-exclude: {}\n", list(config->extend_exclude));
  }
  const SelectionLayer& cli = options_.command_line;
  if (cli.select || !cli.extend_select.empty() || !cli.ignore.empty()) {
    out += fmt::format("  command line: select {}, extend-select {}, ignore {}\n",
                       cli.select ? list(*cli.select) : "(not given)", list(cli.extend_select),
                       list(cli.ignore));
  }
  out += fmt::format("  rules.small-batch-threshold: {}\n", rules.options.small_batch_threshold);
  std::vector<std::string> codes;
  for (const Rule* rule : rules.rules) codes.emplace_back(rule->info.code);
  out += fmt::format("  enabled rules ({}): {}\n", codes.size(), fmt::join(codes, " "));
  out += fmt::format("  excluded from directory walks: {}\n",
                     is_excluded(config, absolute) ? "yes" : "no");
  return out;
}

}  // namespace gpulint
