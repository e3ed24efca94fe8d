#include "server/transport.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <string_view>

namespace gpulint::server {
namespace {

constexpr std::string_view kHeaderEnd = "\r\n\r\n";
// An editor's largest document fits many times over; a header claiming more is a broken peer.
constexpr size_t kMaxBody = size_t{1} << 30;

// The Content-Length of a header block (its lines without the blank line), or nullopt.
std::optional<size_t> content_length(std::string_view header) {
  std::optional<size_t> length;
  while (!header.empty()) {
    const size_t eol = header.find("\r\n");
    std::string_view line = header.substr(0, eol);
    header = eol == std::string_view::npos ? std::string_view() : header.substr(eol + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view name = line.substr(0, colon), value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    // Header names are case-insensitive, as in HTTP.
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    std::string folded;
    for (char c : name) folded += lower(c);
    if (folded != "content-length") continue;  // Content-Type and the like
    size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n > kMaxBody) {
      return std::nullopt;
    }
    length = n;
  }
  return length;
}

}  // namespace

bool Transport::fill() {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

bool Transport::fill_nonblocking() {
  pollfd p{in_, POLLIN, 0};
  while (::poll(&p, 1, 0) < 0) {
    if (errno != EINTR) return false;
  }
  // A closed input is readable too: its end is news the loop must see.
  return (p.revents & (POLLIN | POLLHUP)) != 0 && fill();
}

bool Transport::whole_message_buffered() const {
  const size_t end = buffer_.find(kHeaderEnd);
  if (end == std::string::npos) return false;
  const std::optional<size_t> length = content_length(std::string_view(buffer_).substr(0, end));
  return !length || buffer_.size() >= end + kHeaderEnd.size() + *length;
}

bool Transport::ready() {
  while (!whole_message_buffered()) {
    if (!fill_nonblocking()) return false;
  }
  return true;
}

Incoming Transport::read() {
  size_t end;
  while ((end = buffer_.find(kHeaderEnd)) == std::string::npos) {
    if (!fill()) return {};
  }
  const std::optional<size_t> length = content_length(std::string_view(buffer_).substr(0, end));
  if (!length) {
    std::string header = buffer_.substr(0, end);
    buffer_.erase(0, end + kHeaderEnd.size());
    return {Incoming::Status::Malformed,
            {},
            "a message header without a valid Content-Length: " + header.substr(0, 200)};
  }
  const size_t start = end + kHeaderEnd.size();
  while (buffer_.size() < start + *length) {
    if (!fill()) return {};
  }
  Incoming message{Incoming::Status::Message, buffer_.substr(start, *length), {}};
  buffer_.erase(0, start + *length);
  return message;
}

bool Transport::write(const std::string& body) {
  const std::string message = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t written = 0;
  while (written < message.size()) {
    const ssize_t n = ::write(out_, message.data() + written, message.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace gpulint::server
