#pragma once

// What the language server knows of the workspace beyond the open documents: its root, its
// Python files (read for cross-module context), the result cache, and the costs `gpulint
// verify` kept.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result_cache.h"

namespace gpulint::server {

// file:///a%20b/c.py <-> /a b/c.py; a URI of another scheme gives its text unchanged.
std::string path_of_uri(const std::string& uri);
std::string uri_of_path(const std::string& path);

class Workspace {
 public:
  void set_root(std::string root);  // empty: the working directory
  const std::string& root() const { return root_; }

  // The workspace's Python files that bear on these documents (path, text): those that import
  // one of them, and those one of them imports, matched by module name, so that a keystroke
  // lints a handful of files and not the whole workspace. The engine resolves the imports
  // exactly among them. The workspace is read once, until forget_files().
  std::vector<std::string> context_for(const std::map<std::string, std::string>& documents);
  void forget_files() {
    files_.reset();
    texts_.clear();
  }

  // The workspace's result cache, read but never written: an editor session must not leave
  // files behind.
  std::unique_ptr<ResultCache> open_cache() const;

  // What `gpulint verify` measured for a rule, kept in the cache directory; read again when
  // that file changes.
  std::optional<std::string> measured_cost(const std::string& code);

  // A file's text as it is on disk, for the places a finding relates to in other files.
  const std::string& disk_text(const std::string& path);

 private:
  std::string root_;
  struct File {
    std::string path;
    std::vector<std::string> imports;  // the names its import statements mention
  };
  const std::vector<File>& files();
  std::optional<std::vector<File>> files_;
  std::filesystem::file_time_type costs_time_{};
  std::map<std::string, std::string> costs_;  // code -> summary
  std::map<std::string, std::string> texts_;
};

}  // namespace gpulint::server
