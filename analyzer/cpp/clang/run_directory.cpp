#include "analyzer/cpp/clang/run_directory.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace gpulint::cpp {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "gpulint-preamble-";
// A run takes its lock within microseconds of creating its directory; a lockless directory
// this old belongs to a run that died in between (or to a gpulint from before the lock).
constexpr auto kLocklessAge = std::chrono::minutes(10);

// The pid in `gpulint-preamble-<pid>-XXXXXX` (or the older `gpulint-preamble-<pid>`).
std::optional<pid_t> owner(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const std::string_view digits = name.substr(0, name.find('-'));
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return static_cast<pid_t>(std::stol(std::string(digits)));
}

bool lockless_and_ended(const fs::path& dir, pid_t pid) {
  std::error_code ec;
  const auto written = fs::last_write_time(dir, ec);
  if (ec || fs::file_time_type::clock::now() - written < kLocklessAge) return false;
  // A live pid may be a reused one, but then the directory waits for that process to end.
  return kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

RunDirectory::RunDirectory(const fs::path& temp) {
  if (temp.empty()) return;
  std::string pattern =
      (temp / (std::string(kPrefix) + std::to_string(getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return;
  const fs::path dir = pattern;
  // The lock file is locked before it gets the name other runs look for, so none of them ever
  // finds it unlocked while this run lives. Close-on-exec, or a command gpulint starts would
  // inherit the lock and keep it past gpulint's end.
  const fs::path locking = dir / "lock.new";
  const int fd = open(locking.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, LOCK_EX) != 0 ||
      std::rename(locking.c_str(), (dir / "lock").c_str()) != 0) {
    if (fd >= 0) close(fd);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return;
  }
  path_ = dir;
  lock_ = fd;
}

RunDirectory::~RunDirectory() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
  if (lock_ >= 0) close(lock_);
}

void remove_ended_run_directories(const fs::path& temp) {
  std::error_code ec;
  for (fs::directory_iterator it(temp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path dir = it->path();
    const std::optional<pid_t> pid = owner(dir.filename().string());
    std::error_code status_ec;
    if (!pid || !fs::is_directory(fs::symlink_status(dir, status_ec))) continue;
    const int fd = open((dir / "lock").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      // Not readable (another user's run) is not ours to judge.
      if (errno == ENOENT && lockless_and_ended(dir, *pid)) fs::remove_all(dir, status_ec);
      continue;
    }
    // Held until the directory is gone, so two runs sweeping at once do not race on it.
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) fs::remove_all(dir, status_ec);
    close(fd);
  }
}

}  // namespace gpulint::cpp
