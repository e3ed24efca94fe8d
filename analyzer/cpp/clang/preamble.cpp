#include "analyzer/cpp/clang/preamble.h"

#include <clang/Basic/FileManager.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>

#include "analyzer/cpp/clang/run_directory.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace gpulint::cpp {
namespace {

namespace fs = std::filesystem;

// The #include lines of the file's leading block (blank lines, comments, #include and
// #pragma once); what follows is the file's own code.
std::string include_block(const std::string& text) {
  std::istringstream lines(text);
  std::string block;
  bool includes = false;
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(" \t\r");
    std::string_view code = first == std::string::npos ? "" : std::string_view(line).substr(first);
    if (code.starts_with("#include")) {
      includes = true;
      block += line + "\n";  // comments and blank lines do not change the preamble
    } else if (!code.empty() && !code.starts_with("//") && code != "#pragma once") {
      break;
    }
  }
  return includes ? block : std::string();
}

struct Entry {
  int expected = 0;  // files of this run announced with this block
  int uses = 0;
  bool started = false;
  bool done = false;
  std::string pch;  // empty: could not be built
};

class Preambles {
 public:
  void expect(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    sweep();
    ++entries_[key].expected;
  }

  void forget_expected() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [key, entry] : entries_) entry.expected = entry.uses = 0;
  }

  std::string get(const std::string& key, const std::string& block,
                  const std::vector<std::string>& arguments, const std::string& file) {
    std::unique_lock<std::mutex> lock(mutex_);
    sweep();
    Entry& entry = entries_[key];
    ++entry.uses;
    // A block shared by announced files is built by the first of them, so none parses it
    // whole; otherwise a file beyond those announced (or the second unannounced one) builds it.
    const bool shared = entry.expected >= 2 || entry.uses > std::max(entry.expected, 1);
    if (!shared && !entry.started) return {};
    if (entry.started) {
      built_.wait(lock, [&] { return entry.done; });
      return entry.pch;
    }
    entry.started = true;
    const size_t index = entries_.size();
    if (!dir_) dir_ = std::make_unique<RunDirectory>(temp_);
    const fs::path dir = dir_->path();
    lock.unlock();
    const std::string pch = build(dir, index, block, arguments, file);
    lock.lock();
    entry.pch = pch;
    entry.done = true;
    built_.notify_all();
    return pch;
  }

 private:
  // What runs that ended without removing their PCHs (killed, crashed) left is removed by the
  // next one that gives Clang a file with a leading #include block, once a process.
  void sweep() {
    if (swept_) return;
    swept_ = true;
    std::error_code ec;
    temp_ = fs::temp_directory_path(ec);
    if (ec) temp_.clear();
    if (!temp_.empty()) remove_ended_run_directories(temp_);
  }

  static std::string build(const fs::path& dir, size_t index, const std::string& block,
                           const std::vector<std::string>& arguments, const std::string& file) {
    if (dir.empty()) return {};
    const fs::path header = dir / ("preamble-" + std::to_string(index) + ".h");
    const fs::path pch = dir / ("preamble-" + std::to_string(index) + ".pch");
    {
      std::ofstream out(header);
      out << block;
      if (!out) return {};
    }
    std::vector<std::string> args;
    for (const std::string& arg : arguments) {
      if (arg == file) {
        // Quoted includes resolve from the file's directory, as they would in the file.
        args.push_back("-iquote");
        args.push_back(fs::path(file).parent_path().string());
        args.push_back("-x");
        args.push_back("c++-header");
        args.push_back(header.string());
      } else if (arg != "-fsyntax-only") {
        args.push_back(arg);
      }
    }
    // Templates the headers use are instantiated once, into the PCH; without this every file
    // that loads it instantiates them again (measured: half the cost of parsing torch/torch.h).
    args.push_back("-fpch-instantiate-templates");
    args.push_back("-o");
    args.push_back(pch.string());
    llvm::IntrusiveRefCntPtr<clang::FileManager> files(
        new clang::FileManager(clang::FileSystemOptions()));
    clang::IgnoringDiagConsumer quiet;
    clang::tooling::ToolInvocation invocation(args, std::make_unique<clang::GeneratePCHAction>(),
                                              files.get());
    invocation.setDiagnosticConsumer(&quiet);
    const bool ok = invocation.run();
    std::error_code ec;
    return ok && fs::exists(pch, ec) ? pch.string() : std::string();
  }

  std::mutex mutex_;
  std::condition_variable built_;
  std::map<std::string, Entry> entries_;
  bool swept_ = false;
  fs::path temp_;
  std::unique_ptr<RunDirectory> dir_;
};

Preambles& preambles() {
  static Preambles p;
  return p;
}

// Same flags (the file itself aside) and same block: one PCH.
std::string preamble_key(const std::string& file, const std::string& block,
                         const std::vector<std::string>& arguments) {
  std::string key = fs::path(file).parent_path().string() + '\n' + block;
  for (const std::string& arg : arguments) {
    if (arg != file) key += '\n' + arg;
  }
  return key;
}

}  // namespace

void expect_preamble(const std::string& file, const std::string& text,
                     const std::vector<std::string>& arguments) {
  const std::string block = include_block(text);
  if (!block.empty()) preambles().expect(preamble_key(file, block, arguments));
}

void forget_expected_preambles() { preambles().forget_expected(); }

std::string shared_preamble(const std::string& file, const std::string& text,
                            const std::vector<std::string>& arguments) {
  const std::string block = include_block(text);
  if (block.empty()) return {};
  return preambles().get(preamble_key(file, block, arguments), block, arguments, file);
}

}  // namespace gpulint::cpp
