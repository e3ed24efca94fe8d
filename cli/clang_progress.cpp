#include "cli/clang_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace gpulint {
namespace {

constexpr auto kShownAfter = std::chrono::seconds(1);
constexpr auto kEvery = std::chrono::milliseconds(200);

}  // namespace

std::unique_ptr<TerminalClangProgress> TerminalClangProgress::start() {
  if (!isatty(STDERR_FILENO)) return nullptr;
  std::unique_ptr<TerminalClangProgress> progress(new TerminalClangProgress());
  cpp::set_clang_progress(progress.get());
  return progress;
}

TerminalClangProgress::TerminalClangProgress() : ticker_([this] { tick(); }) {}

TerminalClangProgress::~TerminalClangProgress() {
  cpp::set_clang_progress(nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
}

void TerminalClangProgress::started(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.emplace(path, Clock::now());
}

void TerminalClangProgress::finished(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = running_.find(path); it != running_.end()) running_.erase(it);
}

void TerminalClangProgress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kEvery);
    const Clock::time_point now = Clock::now();
    // The file that has run longest, and how many others have run a second too.
    const std::string* longest = nullptr;
    Clock::duration longest_for{};
    size_t slow = 0;
    for (const auto& [path, since] : running_) {
      if (now - since < kShownAfter) continue;
      ++slow;
      if (longest == nullptr || now - since > longest_for) {
        longest = &path;
        longest_for = now - since;
      }
    }
    std::string line = "\r\x1b[K";  // back to the start of the line, and clear it
    if (longest != nullptr && !stop_) {
      line += fmt::format("Clang: {} ({:.1f} s){}", *longest,
                          std::chrono::duration<double>(longest_for).count(),
                          slow > 1 ? fmt::format(", {} more", slow - 1) : "");
    } else if (!shown_) {
      continue;
    }
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    shown_ = longest != nullptr && !stop_;
  }
}

}  // namespace gpulint
