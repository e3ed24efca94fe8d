#include "cli/output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "rules/registry.h"

namespace gpulint {

namespace {
bool quiet_messages = false;
}  // namespace

void error(std::string_view message) { fmt::print(stderr, "gpulint: error: {}\n", message); }
void warning(std::string_view message) {
  if (!quiet_messages) fmt::print(stderr, "gpulint: warning: {}\n", message);
}
void note(std::string_view message) {
  if (!quiet_messages) fmt::print(stderr, "gpulint: note: {}\n", message);
}
void set_quiet(bool quiet) { quiet_messages = quiet; }

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

namespace {

// The file a path names through its symlinks, even when the last one dangles (writing creates
// it). After 40 links, as the kernel gives up, the path as it stands.
std::filesystem::path through_symlinks(std::filesystem::path p) {
  namespace fs = std::filesystem;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) return p;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p;
}

// A device, a FIFO, a terminal: written through, as a shell's `>` would.
bool write_through(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  bool ok = fd >= 0 && write_all(fd, bytes);
  int cause = errno;
  if (fd >= 0 && ::close(fd) != 0 && ok) ok = false, cause = errno;
  if (!ok) error(fmt::format("{}: cannot write the report: {}", path, std::strerror(cause)));
  return ok;
}

}  // namespace

bool write_atomically(const std::string& path, std::string_view bytes) {
  if (path == "-") return write_stdout(bytes);
  // What is there, through any symlinks: a device, FIFO or socket is written through, never
  // replaced (`/dev/stdout`, `/dev/full`, a named pipe a CI step reads).
  struct stat seen;
  const bool exists = ::stat(path.c_str(), &seen) == 0;
  if (exists && S_ISDIR(seen.st_mode)) {
    error(fmt::format("{}: cannot write the report: it is a directory", path));
    return false;
  }
  if (exists && !S_ISREG(seen.st_mode)) return write_through(path, bytes);
  // A regular file (or none yet) is replaced whole, where it really is: a symlink keeps
  // pointing at the new report, and the file keeps its permissions.
  const std::filesystem::path target = through_symlinks(path);
  if (target.string().starts_with("/proc/")) return write_through(path, bytes);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string temp = (dir / ("." + target.filename().string() + ".gpulint-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    error(fmt::format("{}: cannot create a temporary file beside it: {}", path,
                      std::strerror(errno)));
    return false;
  }
  mode_t mode;
  if (exists) {
    mode = seen.st_mode & 07777;
  } else {
    // mkstemp creates 0600; a new report gets the permissions any new file would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, bytes) && ::fsync(fd) == 0;
  int cause = errno;
  if (::close(fd) != 0 && ok) ok = false, cause = errno;
  if (ok && ::rename(temp.c_str(), target.c_str()) != 0) ok = false, cause = errno;
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

std::vector<RuleInfo> rule_infos() {
  std::vector<RuleInfo> rules;
  for (const Rule* rule : all_rules()) rules.push_back(rule->info);
  return rules;
}

std::string source_root() {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? "/" : cwd.string();
}

std::string render_findings(std::string_view format, const std::vector<Diagnostic>& diagnostics,
                            const ReportSummary& summary) {
  if (format == "json") return render_json(diagnostics, summary, GPULINT_VERSION);
  if (format == "sarif") {
    return render_sarif(diagnostics, summary, rule_infos(),
                        {.version = GPULINT_VERSION,
                         .information_uri = GPULINT_HOMEPAGE,
                         .source_root = source_root()});
  }
  if (format == "github") return render_github(diagnostics, summary);
  return render_text(diagnostics, summary, {.color = false});
}

}  // namespace gpulint
