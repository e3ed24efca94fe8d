#include "cli/output.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace gpulint {

void error(std::string_view message) { fmt::print(stderr, "gpulint: error: {}\n", message); }
void warning(std::string_view message) { fmt::print(stderr, "gpulint: warning: {}\n", message); }
void note(std::string_view message) { fmt::print(stderr, "gpulint: note: {}\n", message); }

namespace {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool write_atomically(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string temp = (dir / ("." + target.filename().string() + ".gpulint-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    error(fmt::format("{}: cannot create a temporary file: {}", path, std::strerror(errno)));
    return false;
  }
  // mkstemp creates 0600; the report should get the permissions any new file would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = ::fchmod(fd, 0666 & ~mask) == 0 && write_all(fd, bytes) && ::fsync(fd) == 0;
  int cause = errno;
  if (::close(fd) != 0 && ok) ok = false, cause = errno;
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, cause = errno;
  if (!ok) {
    ::unlink(temp.c_str());
    error(fmt::format("{}: cannot write the report: {}", path, std::strerror(cause)));
  }
  return ok;
}

bool write_stdout(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() ||
      std::fflush(stdout) != 0) {
    error(fmt::format("cannot write the report to stdout: {}", std::strerror(errno)));
    return false;
  }
  return true;
}

}  // namespace gpulint
