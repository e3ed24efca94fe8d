#include "analyzer/core/config.h"

#include "analyzer/core/file_reading.h"
#include "analyzer/core/selection.h"
#include "analyzer/core/suggest.h"

#include <toml++/toml.h>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace gpulint {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kTopLevelFile = ".gpulint.toml";

std::string where(const fs::path& file, const toml::source_region& region) {
  std::ostringstream out;
  out << file.string() << ':' << region.begin.line << ':' << region.begin.column;
  return out.str();
}

[[noreturn]] void fail(const fs::path& file, const toml::source_region& region,
                       const std::string& what) {
  throw ConfigError(where(file, region) + ": " + what);
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

class Reader {
 public:
  Reader(const fs::path& file, std::span<const Rule* const> rules) : file_(file), rules_(rules) {}

  std::vector<std::string> strings(const toml::node& node, std::string_view key) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      fail(file_, node.source(),
           "`" + std::string(key) + "` must be an array of strings, not " + type_name(node));
    }
    std::vector<std::string> out;
    for (const toml::node& element : *array) {
      std::optional<std::string> value = element.value_exact<std::string>();
      if (!value) {
        fail(file_, element.source(),
             "`" + std::string(key) + "` must hold only strings, not " + type_name(element));
      }
      out.push_back(std::move(*value));
    }
    return out;
  }

  std::vector<std::string> selectors(const toml::node& node, std::string_view key) {
    std::vector<std::string> out = strings(node, key);
    const toml::array& array = *node.as_array();
    for (size_t i = 0; i < out.size(); ++i) {
      const std::string written = out[i];
      std::string& s = out[i] = normal_selector(written);
      const bool known = std::any_of(rules_.begin(), rules_.end(), [&](const Rule* r) {
        return s == "ALL" || r->info.code.starts_with(s);
      });
      if (!known || s.empty()) {
        fail(file_, array[i].source(),
             "unknown rule selector `" + written + "` in `" + std::string(key) + "`" +
                 did_you_mean(s, selector_words(rules_)));
      }
    }
    return out;
  }

  std::vector<PathGlob> globs(const toml::node& node, std::string_view key, const fs::path& root) {
    std::vector<PathGlob> out;
    for (std::string& pattern : strings(node, key)) out.emplace_back(std::move(pattern), root);
    return out;
  }

  const toml::table& table(const toml::node& node, std::string_view key) {
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      fail(file_, node.source(),
           "`" + std::string(key) + "` must be a table, not " + type_name(node));
    }
    return *t;
  }

  void read_rules_table(const toml::table& table, ConfigFile& config) {
    for (const auto& [key, node] : table) {
      if (key.str() == "small-batch-threshold") {
        std::optional<int64_t> value = node.value_exact<int64_t>();
        if (!value) {
          fail(file_, node.source(),
               "`small-batch-threshold` must be an integer, not " + type_name(node));
        }
        if (*value < 1) fail(file_, node.source(), "`small-batch-threshold` must be at least 1");
        config.small_batch_threshold = *value;
      } else if (key.str() == "test-code") {
        std::optional<bool> value = node.value_exact<bool>();
        if (!value)
          fail(file_, node.source(), "`test-code` must be true or false, not " + type_name(node));
        config.test_code = *value;
      } else {
        fail(file_, key.source(),
             "unknown key `rules." + std::string(key.str()) +
                 "` (known: small-batch-threshold, test-code)");
      }
    }
  }

  ConfigFile read(const toml::table& settings) {
    ConfigFile config;
    config.path = file_;
    config.root = fs::absolute(file_).lexically_normal().parent_path();
    for (const auto& [key, node] : settings) {
      const std::string_view name = key.str();
      if (name == "select") {
        config.selection.select = selectors(node, name);
      } else if (name == "extend-select") {
        config.selection.extend_select = selectors(node, name);
      } else if (name == "ignore") {
        config.selection.ignore = selectors(node, name);
      } else if (name == "exclude") {
        config.exclude = globs(node, name, config.root);
        config.default_exclude = false;
      } else if (name == "extend-exclude") {
        config.extend_exclude = globs(node, name, config.root);
      } else if (name == "per-file-ignores") {
        for (const auto& [pattern, codes] : table(node, name)) {
          std::string glob(pattern.str());
          const bool negated = glob.starts_with('!');
          if (negated) glob.erase(0, 1);
          config.per_file_ignores.push_back(
              {PathGlob(glob, config.root), negated,
               selectors(codes, "per-file-ignores." + std::string(pattern.str()))});
        }
      } else if (name == "rules") {
        read_rules_table(table(node, name), config);
      } else {
        fail(file_, key.source(),
             "unknown key `" + std::string(name) +
                 "` (known: select, extend-select, ignore, per-file-ignores, exclude, "
                 "extend-exclude, rules)" +
                 did_you_mean(name, {"select", "extend-select", "ignore", "per-file-ignores",
                                     "exclude", "extend-exclude", "rules"}));
      }
    }
    if (config.default_exclude) {
      for (const std::string& pattern : default_excludes()) {
        config.exclude.emplace_back(pattern, config.root);
      }
    }
    return config;
  }

 private:
  const fs::path& file_;
  std::span<const Rule* const> rules_;
};

bool matches_any(const std::vector<PathGlob>& globs, const fs::path& absolute) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const PathGlob& g) { return g.matches(absolute); });
}

bool selector_matches(std::string_view selector, std::string_view code) {
  return selector == "ALL" || code.starts_with(selector);
}

}  // namespace

const std::vector<std::string>& default_excludes() {
  static const std::vector<std::string> kDefaults = {
      ".*", "__pycache__", "build", "dist", "node_modules", "site-packages", "venv"};
  return kDefaults;
}

std::optional<ConfigFile> load_config(const fs::path& file, std::span<const Rule* const> rules) {
  // A config file is read as inputs are: a FIFO in its place must not hang the run.
  FileRead read = read_regular_file(file.string());
  if (!read.error.empty()) throw ConfigError(file.string() + ": " + read.error);
  return parse_config(read.bytes, file, rules);
}

std::optional<ConfigFile> parse_config(std::string_view text, const fs::path& file,
                                       std::span<const Rule* const> rules) {
  toml::table document;
  try {
    document = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    fail(file, e.source(), std::string(e.description()));
  }
  Reader reader(file, rules);
  if (file.filename() == kTopLevelFile) return reader.read(document);
  const toml::node* tool = document.get("tool");
  if (tool == nullptr) return std::nullopt;
  const toml::node* settings = reader.table(*tool, "tool").get("gpulint");
  if (settings == nullptr) return std::nullopt;
  return reader.read(reader.table(*settings, "tool.gpulint"));
}

ConfigResolver::ConfigResolver(std::span<const Rule* const> rules,
                               std::optional<fs::path> explicit_config)
    : rules_(rules) {
  if (!explicit_config) return;
  has_explicit_ = true;
  std::error_code ec;
  if (!fs::is_regular_file(*explicit_config, ec)) {
    throw ConfigError(explicit_config->string() + ": no such config file");
  }
  std::optional<ConfigFile> config = load_config(*explicit_config, rules_);
  if (!config) {
    throw ConfigError(explicit_config->string() + ": has no [tool.gpulint] table");
  }
  explicit_ = std::make_unique<ConfigFile>(std::move(*config));
}

const ConfigFile* ConfigResolver::for_directory(const fs::path& absolute_dir) {
  if (has_explicit_) return explicit_.get();
  const fs::path dir = absolute_dir.lexically_normal();
  if (auto found = by_directory_.find(dir); found != by_directory_.end()) return found->second;
  const ConfigFile* result = nullptr;
  std::error_code ec;
  for (const char* name : {".gpulint.toml", "pyproject.toml"}) {
    const fs::path candidate = dir / name;
    if (!fs::is_regular_file(candidate, ec)) continue;
    if (std::optional<ConfigFile> config = load_config(candidate, rules_)) {
      loaded_.push_back(std::make_unique<ConfigFile>(std::move(*config)));
      result = loaded_.back().get();
      break;
    }
  }
  if (result == nullptr && dir.has_relative_path()) result = for_directory(dir.parent_path());
  by_directory_[dir] = result;
  return result;
}

bool is_excluded(const ConfigFile* config, const fs::path& absolute) {
  if (config != nullptr) {
    return matches_any(config->exclude, absolute) || matches_any(config->extend_exclude, absolute);
  }
  static const std::vector<PathGlob> kDefaults = [] {
    std::vector<PathGlob> globs;
    for (const std::string& pattern : default_excludes()) globs.emplace_back(pattern, "/");
    return globs;
  }();
  return matches_any(kDefaults, absolute);
}

RuleSet resolve_rule_set(std::span<const Rule* const> rules, const ConfigFile* config,
                         const SelectionLayer& command_line, const fs::path& absolute_file) {
  std::vector<SelectionLayer> layers;
  if (config != nullptr) layers.push_back(config->selection);
  layers.push_back(command_line);
  RuleSet set;
  set.known = rules;
  set.rules = Selection::resolve(rules, layers).enabled();
  if (config != nullptr) {
    for (const PerFileIgnore& entry : config->per_file_ignores) {
      if (entry.glob.matches(absolute_file) == entry.negated) continue;
      std::erase_if(set.rules, [&](const Rule* rule) {
        return std::any_of(entry.codes.begin(), entry.codes.end(), [&](const std::string& s) {
          return selector_matches(s, rule->info.code);
        });
      });
    }
    if (config->small_batch_threshold) {
      set.options.small_batch_threshold = *config->small_batch_threshold;
    }
    if (config->test_code) set.options.test_code = *config->test_code;
  }
  for (const SelectionLayer& layer : layers) {
    for (const auto* list : {&layer.extend_select, layer.select ? &*layer.select : nullptr}) {
      if (list == nullptr) continue;
      for (const std::string& s : *list) {
        const bool enabled = std::any_of(set.rules.begin(), set.rules.end(),
                                         [&](const Rule* r) { return r->info.code == s; });
        if (enabled && std::find(set.explicitly_selected.begin(), set.explicitly_selected.end(),
                                 s) == set.explicitly_selected.end()) {
          set.explicitly_selected.push_back(s);
        }
      }
    }
  }
  return set;
}

}  // namespace gpulint
