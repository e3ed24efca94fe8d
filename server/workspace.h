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

  // The workspace's Python files, walked once until forget_files(). Empty for a workspace
  // too large to read at every keystroke (a home directory opened by mistake).
  const std::vector<std::string>& context_files();
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
  std::optional<std::vector<std::string>> files_;
  std::filesystem::file_time_type costs_time_{};
  std::map<std::string, std::string> costs_;  // code -> summary
  std::map<std::string, std::string> texts_;
};

}  // namespace gpulint::server
