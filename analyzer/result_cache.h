#pragma once

// Results of earlier runs, as Ruff keeps them: one entry per file, keyed by everything the
// result depends on (gpulint's version, the file's path and bytes, the rules and options it is
// checked with, and what other files of the run said about it), so an entry is either exactly
// right or never found. Stored under DIR/<version>/results.msgpack, written atomically; an
// unreadable or foreign cache file is a cold start, never an error.

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analyzer/file_outcome.h"

namespace gpulint {

// Where results are cached: `option` (--cache-dir) when given, else $GPULINT_CACHE_DIR, else
// .gpulint_cache in the working directory.
std::string cache_dir(const std::string& option);
// What `gpulint verify` keeps of its costs in the cache directory's versioned folder, for the
// language server's hover.
constexpr const char* kCostsFile = "costs.json";
// The running binary's size and modification time: a rebuilt gpulint starts a cold cache.
std::string build_id();

// Creates a cache directory's versioned folder (DIR/VERSION); a DIR that gpulint creates gets a
// .gitignore that ignores it. Returns what went wrong, or an empty string.
std::string make_cache_directory(const std::filesystem::path& versioned);

class ResultCache {
 public:
  // `build` tells builds of one version apart (the binary's size and time), so a rebuilt
  // gpulint never reuses a result of the one before.
  ResultCache(std::filesystem::path dir, const std::string& version, std::string build);

  // Thread-safe. A found entry is kept by save().
  std::optional<FileOutcome> find(const std::string& key);
  void store(const std::string& key, const FileOutcome& outcome);

  // Writes the entries this run found or stored, dropping the rest; returns what went wrong,
  // or an empty string.
  std::string save();

  // The key of one file's result.
  std::string key(std::string_view path, std::string_view settings, std::string_view inbound,
                  std::string_view bytes) const;

 private:
  std::filesystem::path file_;
  std::string build_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> loaded_;  // key -> encoded outcome
  std::unordered_map<std::string, std::string> kept_;
};

}  // namespace gpulint
