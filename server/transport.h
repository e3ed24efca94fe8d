#pragma once

// The Language Server Protocol's base protocol: each message a JSON body after a header whose
// Content-Length gives its size in bytes, over a pair of file descriptors (stdin and stdout).

#include <string>

namespace gpulint::server {

struct Incoming {
  enum class Status { Message, End, Malformed };
  Status status = Status::End;
  std::string body;     // Message: the JSON text
  std::string problem;  // Malformed: what was wrong with the header
};

class Transport {
 public:
  Transport(int in, int out) : in_(in), out_(out) {}

  // The next message; End when the input has closed. After a malformed header the input is
  // read on from the next header, so one bad message loses only itself.
  Incoming read();
  // Whether a whole message can be read without waiting: how the server sees that an editor
  // is still typing, and lints only once the burst of changes has been read.
  bool ready();
  bool write(const std::string& body);

 private:
  bool fill();  // reads more input into the buffer; false at end of input or an error
  bool fill_nonblocking();
  bool whole_message_buffered() const;

  int in_;
  int out_;
  std::string buffer_;
};

}  // namespace gpulint::server
