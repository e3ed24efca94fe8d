#include "analyzer/core/file_reading.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gpulint {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string describe_size(uint64_t bytes) {
  char out[64];
  if (bytes >= 1000 * 1000) {
    std::snprintf(out, sizeof out, "%.3g MB", static_cast<double>(bytes) / 1e6);
  } else if (bytes >= 1000) {
    std::snprintf(out, sizeof out, "%.3g kB", static_cast<double>(bytes) / 1e3);
  } else {
    std::snprintf(out, sizeof out, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return out;
}

FileRead read_regular_file(const std::string& path, uint64_t limit) {
  FileRead out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    out.error = errno == ELOOP ? "cannot be read: a symlink loop (or more than 40 symlinks deep)"
                               : std::string("cannot be read: ") + std::strerror(errno);
    return out;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    out.error = std::string("cannot be read: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    out.error = std::string("is ") + kind_of(st.st_mode) + ", not a regular file; not read";
  } else if (static_cast<uint64_t>(st.st_size) > limit) {
    out.too_large = true;
    out.error = describe_size(static_cast<uint64_t>(st.st_size)) + ", over the " +
                describe_size(limit) + " limit (--max-file-size); skipped";
  } else {
    out.bytes.resize(static_cast<size_t>(st.st_size));
    size_t have = 0;
    // A file that grows while it is read is read up to the limit, no further.
    while (true) {
      if (have == out.bytes.size()) {
        if (out.bytes.size() > limit) break;
        out.bytes.resize(std::max<size_t>(out.bytes.size() * 2, 4096));
      }
      const ssize_t n = ::read(fd, out.bytes.data() + have, out.bytes.size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = std::string("read error: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      have += static_cast<size_t>(n);
    }
    out.bytes.resize(have);
    if (out.error.empty() && have > limit) {
      out.too_large = true;
      out.error = "over the " + describe_size(limit) + " limit (--max-file-size); skipped";
    }
  }
  ::close(fd);
  if (!out.error.empty()) out.bytes.clear();
  return out;
}

}  // namespace gpulint
