#include "analyzer/cpp/clang/preamble.h"

#include <clang/Basic/FileManager.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
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
  int uses = 0;
  bool started = false;
  bool done = false;
  std::string pch;  // empty: could not be built
};

class Preambles {
 public:
  ~Preambles() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string get(const std::string& key, const std::string& block,
                  const std::vector<std::string>& arguments, const std::string& file) {
    std::unique_lock<std::mutex> lock(mutex_);
    Entry& entry = entries_[key];
    // The first file parses whole, so a run of one file pays nothing for a PCH it cannot reuse;
    // the second builds the PCH, and every later one waits for it.
    if (entry.uses++ == 0) return {};
    if (entry.started) {
      built_.wait(lock, [&] { return entry.done; });
      return entry.pch;
    }
    entry.started = true;
    const size_t index = entries_.size();
    if (dir_.empty()) {
      std::error_code ec;
      dir_ = fs::temp_directory_path(ec) / ("gpulint-preamble-" + std::to_string(getpid()));
      fs::create_directories(dir_, ec);
    }
    const fs::path dir = dir_;
    lock.unlock();
    const std::string pch = build(dir, index, block, arguments, file);
    lock.lock();
    entry.pch = pch;
    entry.done = true;
    built_.notify_all();
    return pch;
  }

 private:
  static std::string build(const fs::path& dir, size_t index, const std::string& block,
                           const std::vector<std::string>& arguments, const std::string& file) {
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
  fs::path dir_;
};

Preambles& preambles() {
  static Preambles p;
  return p;
}

}  // namespace

std::string shared_preamble(const std::string& file, const std::string& text,
                            const std::vector<std::string>& arguments) {
  const std::string block = include_block(text);
  if (block.empty()) return {};
  // Same flags (the file itself aside) and same block: one PCH.
  std::string key = fs::path(file).parent_path().string() + '\n' + block;
  for (const std::string& arg : arguments) {
    if (arg != file) key += '\n' + arg;
  }
  return preambles().get(key, block, arguments, file);
}

}  // namespace gpulint::cpp
