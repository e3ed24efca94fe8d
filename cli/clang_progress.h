#pragma once

// On a terminal, a Clang parse that has run for a second shows on stderr as one line that is
// rewritten in place (`Clang: src/train.cpp (3.2 s), 1 more`), and cleared when nothing slow
// is left; elsewhere nothing is written.

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "analyzer/cpp/resolver.h"

namespace gpulint {

class TerminalClangProgress : public cpp::ClangProgress {
 public:
  // Installs itself with cpp::set_clang_progress, and removes itself when destroyed; null when
  // stderr is not a terminal.
  static std::unique_ptr<TerminalClangProgress> start();
  ~TerminalClangProgress() override;

  void started(const std::string& path) override;
  void finished(const std::string& path) override;

 private:
  using Clock = std::chrono::steady_clock;
  TerminalClangProgress();
  void tick();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::multimap<std::string, Clock::time_point> running_;
  bool shown_ = false;  // a line is on the terminal
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace gpulint
