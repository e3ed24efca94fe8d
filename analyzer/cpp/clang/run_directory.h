#pragma once

// The temporary directory a run keeps its shared PCHs in. A run that crashes or is killed
// cannot remove its own, so each one holds a lock on a file in it for as long as the process
// lives (the kernel drops the lock however the process ends), and a later run removes the
// directories whose lock nobody holds. Another live run's directory is never touched.

#include <filesystem>

namespace gpulint::cpp {

class RunDirectory {
 public:
  // Creates `gpulint-preamble-<pid>-XXXXXX` under `temp`, locked; path() is empty when that
  // fails or `temp` is empty (and the run parses every file whole).
  explicit RunDirectory(const std::filesystem::path& temp);
  // Removes the directory, then drops the lock.
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_ = -1;
};

// Removes the directories under `temp` that runs which ended left behind: those whose lock
// nobody holds, and those without a lock (a run killed before taking it, or a gpulint from
// before the lock) older than ten minutes whose pid is no live process.
void remove_ended_run_directories(const std::filesystem::path& temp);

}  // namespace gpulint::cpp
