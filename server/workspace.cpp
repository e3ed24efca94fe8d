#include "server/workspace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "analyzer/core/language.h"
#include "analyzer/core/project.h"
#include "rules/registry.h"

namespace gpulint::server {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxContextFiles = 5000;
// Texts read for related locations, kept for the session: bounded so a long session stays flat.
constexpr size_t kMaxDiskTexts = 64;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The names an import statement mentions: every dotted component of `import a.b as c` and
// `from .a.b import c, d`, so that a module is found whoever names it and however.
std::vector<std::string> imported_names(std::string_view text) {
  std::vector<std::string> names;
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    const size_t indent = line.find_first_not_of(" \t");
    if (indent == std::string_view::npos) continue;
    line.remove_prefix(indent);
    if (!line.starts_with("import ") && !line.starts_with("from ")) continue;
    std::string word;
    for (char c : line) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        word += c;
        continue;
      }
      if (c == '#') break;
      if (!word.empty() && word != "import" && word != "from" && word != "as")
        names.push_back(word);
      word.clear();
    }
    if (!word.empty() && word != "import") names.push_back(word);
  }
  return names;
}

// A file's name as a module: its stem, or its package's name for an __init__.py.
std::string module_name(const std::string& path) {
  const fs::path p(path);
  return p.stem() == "__init__" ? p.parent_path().filename().string() : p.stem().string();
}

}  // namespace

std::string path_of_uri(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (!uri.starts_with(kScheme)) return uri;
  std::string path;
  // file://host/path: a host (other than localhost, written as nothing) is not ours to read.
  const size_t start = uri.find('/', kScheme.size());
  for (size_t i = start == std::string::npos ? uri.size() : start; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_digit(uri[i + 1]) >= 0 &&
        hex_digit(uri[i + 2]) >= 0) {
      path += static_cast<char>(hex_digit(uri[i + 1]) * 16 + hex_digit(uri[i + 2]));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

std::string uri_of_path(const std::string& path) {
  std::string uri = "file://";
  for (unsigned char c : fs::absolute(path).string()) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    uri += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return uri;
}

void Workspace::set_root(std::string root) {
  std::error_code ec;
  root_ = root.empty() ? fs::current_path(ec).string() : std::move(root);
  files_.reset();
  // Where `check` would run: a compile database under build/ is found from here, whatever
  // directory the editor started the server in. Every path the server uses is absolute.
  fs::current_path(root_, ec);
}

const std::vector<Workspace::File>& Workspace::files() {
  if (!files_) {
    files_.emplace();
    try {
      Project project(all_rules(), {});
      WalkResult walked = project.walk(root_);
      if (walked.files.size() <= kMaxContextFiles) {
        for (std::string& path : walked.files) {
          if (language_of(path) != Language::Python) continue;
          std::ifstream in(path, std::ios::binary);
          const std::string text((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
          files_->push_back({std::move(path), imported_names(text)});
        }
      }
    } catch (const std::exception&) {
      // A broken configuration: each document is linted on its own, and the lint says why.
      files_->clear();
    }
  }
  return *files_;
}

std::vector<std::string> Workspace::context_for(
    const std::map<std::string, std::string>& documents) {
  std::set<std::string> names_of_documents, names_imported;
  for (const auto& [path, text] : documents) {
    names_of_documents.insert(module_name(path));
    for (std::string& name : imported_names(text)) names_imported.insert(std::move(name));
  }
  std::vector<std::string> out;
  for (const File& file : files()) {
    const bool imports_a_document =
        std::any_of(file.imports.begin(), file.imports.end(),
                    [&](const std::string& name) { return names_of_documents.contains(name); });
    if (imports_a_document || names_imported.contains(module_name(file.path))) {
      out.push_back(file.path);
    }
  }
  return out;
}

std::unique_ptr<ResultCache> Workspace::open_cache() const {
  return std::make_unique<ResultCache>(fs::path(root_) / cache_dir(""), GPULINT_VERSION,
                                       build_id());
}

std::optional<std::string> Workspace::measured_cost(const std::string& code) {
  const fs::path file = fs::path(root_) / cache_dir("") / GPULINT_VERSION / kCostsFile;
  std::error_code ec;
  const fs::file_time_type time = fs::last_write_time(file, ec);
  if (ec) return std::nullopt;
  if (time != costs_time_) {
    costs_time_ = time;
    costs_.clear();
    std::ifstream in(file);
    const nlohmann::json kept = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    const auto costs = kept.is_object() ? kept.find("costs") : kept.end();
    if (kept.is_object() && costs != kept.end() && costs->is_array()) {
      const std::string device = kept.value("device", "");
      for (const nlohmann::json& c : *costs) {
        if (!c.is_object() || !c.contains("value")) continue;  // measured, not only described
        costs_[c.value("code", "")] =
            fmt::format("{} (measured by `gpulint verify` on {})", c.value("summary", ""), device);
      }
    }
  }
  const auto it = costs_.find(code);
  return it == costs_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

const std::string& Workspace::disk_text(const std::string& path) {
  const auto it = texts_.find(path);
  if (it != texts_.end()) return it->second;
  if (texts_.size() >= kMaxDiskTexts) texts_.clear();
  std::ifstream in(path, std::ios::binary);
  return texts_[path] =
             std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace gpulint::server
