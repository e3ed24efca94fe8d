#pragma once

// Reading an input file: only regular files, never blocking on a FIFO or reading a device
// without end, and no more than a size limit.

#include <cstdint>
#include <string>
#include <string_view>

namespace gpulint {

// The size limit on an input file when the user sets none (`--max-file-size`).
inline constexpr uint64_t kDefaultMaxFileSize = 20 * 1000 * 1000;

struct FileRead {
  std::string bytes;
  std::string error;       // why it could not be read; empty when it was
  bool too_large = false;  // over the limit: skipped, not an error in the file
};

// Opens without blocking (a FIFO named as an input must not hang the run), reads only a
// regular file (through symlinks), and stops at `limit` bytes.
FileRead read_regular_file(const std::string& path, uint64_t limit = kDefaultMaxFileSize);

// A Python file's PEP 263 declaration (`# -*- coding: latin-1 -*-` on line 1 or 2), as
// written; empty when there is none.
std::string declared_coding(std::string_view bytes);

// Re-encodes `bytes` from `coding` (a PEP 263 name) to UTF-8 in place; the error, or empty.
// UTF-8 (and its aliases) is left as it is.
std::string decode_to_utf8(std::string& bytes, const std::string& coding);

// "20 MB", "3.27 kB", "900 bytes": a size for messages.
std::string describe_size(uint64_t bytes);

}  // namespace gpulint
