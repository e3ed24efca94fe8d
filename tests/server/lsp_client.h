#pragma once

// A scripted LSP client for the tests: starts `gpulint server` in a directory, sends messages
// and reads what comes back, with a deadline on every read.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "server/transport.h"

namespace gpulint::server {

using Json = nlohmann::json;

class LspClient {
 public:
  explicit LspClient(const std::filesystem::path& cwd) {
    int to_server[2], from_server[2];
    if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_server[0], STDIN_FILENO);
      ::dup2(from_server[1], STDOUT_FILENO);
      ::close(to_server[1]);
      ::close(from_server[0]);
      if (::chdir(cwd.c_str()) != 0) ::_exit(126);
      ::execl(GPULINT_BINARY, GPULINT_BINARY, "server", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_server[0]);
    ::close(from_server[1]);
    in_ = to_server[1];
    out_ = from_server[0];
    transport_.emplace(out_, in_);
  }
  ~LspClient() {
    if (in_ >= 0) ::close(in_);
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }
  LspClient(const LspClient&) = delete;
  LspClient& operator=(const LspClient&) = delete;

  void raw(const std::string& bytes) {
    [[maybe_unused]] auto n = ::write(in_, bytes.data(), bytes.size());
  }
  void send(const Json& message) { transport_->write(message.dump()); }
  void notify(const std::string& method, Json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  int request(const std::string& method, Json params) {
    const int id = ++next_id_;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }

  // The next message, or nullopt after `limit`.
  std::optional<Json> next(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!transport_->ready()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      if (p.revents & POLLHUP && !(p.revents & POLLIN)) return std::nullopt;
    }
    const Incoming in = transport_->read();
    if (in.status != Incoming::Status::Message) return std::nullopt;
    return Json::parse(in.body);
  }
  // The answer to request `id`, skipping notifications (kept in `seen`).
  Json answer(int id) {
    while (std::optional<Json> m = next()) {
      if (m->contains("id") && (*m)["id"] == id && !m->contains("method")) return *m;
      seen.push_back(*m);
    }
    return nullptr;
  }
  // The next diagnostics published for `uri`.
  Json published(const std::string& uri) {
    for (auto it = seen.begin(); it != seen.end(); ++it) {
      if (is_publish(*it, uri)) {
        Json m = *it;
        seen.erase(it);
        return m["params"];
      }
    }
    while (std::optional<Json> m = next()) {
      if (is_publish(*m, uri)) return (*m)["params"];
      seen.push_back(*m);
    }
    return nullptr;
  }

  Json initialize(const std::string& root_uri, Json capabilities = Json::object()) {
    const Json reply = answer(
        request("initialize",
                {{"processId", nullptr}, {"rootUri", root_uri}, {"capabilities", capabilities}}));
    notify("initialized", Json::object());
    return reply;
  }

  // The exit code, once the server has ended; -1 if it has not within the limit.
  int wait_exit(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      ::usleep(10000);
    }
    return -1;
  }
  void close_input() {
    ::close(in_);
    in_ = -1;
  }
  pid_t pid() const { return pid_; }

  std::vector<Json> seen;

 private:
  static bool is_publish(const Json& m, const std::string& uri) {
    return m.value("method", "") == "textDocument/publishDiagnostics" &&
           m["params"].value("uri", "") == uri;
  }

  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  bool waited_ = false;
  int next_id_ = 0;
  std::optional<Transport> transport_;
};

}  // namespace gpulint::server
