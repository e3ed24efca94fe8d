#include "analyzer/core/file_reading.h"

#include <fcntl.h>
#include <iconv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
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

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

}  // namespace

std::string declared_coding(std::string_view bytes) {
  size_t line_start = 0;
  for (int line = 0; line < 2 && line_start < bytes.size(); ++line) {
    size_t end = bytes.find_first_of("\r\n", line_start);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view text = bytes.substr(line_start, end - line_start);
    const size_t code = text.find_first_not_of(" \t\f");
    // Only a comment line declares; a line of code before it ends the search (PEP 263).
    if (code == std::string_view::npos || text[code] != '#') {
      if (code != std::string_view::npos) return {};
    } else {
      for (size_t at = text.find("coding", code); at != std::string_view::npos;
           at = text.find("coding", at + 1)) {
        size_t i = at + 6;
        if (i >= text.size() || (text[i] != ':' && text[i] != '=')) continue;
        ++i;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        size_t name = i;
        while (i < text.size() && name_char(text[i])) ++i;
        if (i > name) return std::string(text.substr(name, i - name));
      }
    }
    line_start = end + (end < bytes.size() && bytes[end] == '\r' && end + 1 < bytes.size() &&
                                bytes[end + 1] == '\n'
                            ? 2
                            : 1);
  }
  return {};
}

std::string decode_to_utf8(std::string& bytes, const std::string& coding) {
  std::string name;
  for (char c : coding) name += c == '_' ? '-' : static_cast<char>(std::tolower(c));
  if (name == "utf-8" || name == "utf8" || name.starts_with("utf-8-")) return {};
  // Python's names that iconv spells otherwise.
  if (name == "latin-1" || name == "latin1" || name == "l1") name = "iso-8859-1";
  iconv_t cd = ::iconv_open("UTF-8", name.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1))
    return "declares the encoding `" + coding + "`, which gpulint cannot decode";
  std::string out(bytes.size() * 4 + 16, '\0');
  char* in = bytes.data();
  size_t in_left = bytes.size();
  char* to = out.data();
  size_t out_left = out.size();
  const size_t done = ::iconv(cd, &in, &in_left, &to, &out_left);
  ::iconv_close(cd);
  if (done == static_cast<size_t>(-1)) {
    return "not valid `" + coding + "` at byte " + std::to_string(bytes.size() - in_left) +
           ", the encoding it declares";
  }
  out.resize(out.size() - out_left);
  bytes = std::move(out);
  return {};
}

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
    // The size fstat gave, read in place; past it (a file that grows while it is read) through a
    // small buffer, up to the limit and no further.
    out.bytes.resize(static_cast<size_t>(st.st_size));
    size_t have = 0;
    char more[4096];
    while (have <= limit) {
      const bool in_place = have < out.bytes.size();
      char* into = in_place ? out.bytes.data() + have : more;
      const size_t room = in_place ? out.bytes.size() - have : sizeof more;
      const ssize_t n = ::read(fd, into, room);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = std::string("read error: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      if (!in_place) out.bytes.append(more, static_cast<size_t>(n));
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
