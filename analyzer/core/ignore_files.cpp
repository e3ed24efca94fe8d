#include "analyzer/core/ignore_files.h"

#include "analyzer/core/libgit2.h"

#include <fstream>
#include <iterator>
#include <system_error>

namespace gpulint {
namespace fs = std::filesystem;
namespace {

// libgit2 addresses work-tree paths relative to the work tree, `/`-separated, and marks
// folders with a trailing `/` so that `build/` patterns match them.
// Matchers exist only once libgit2 has loaded.
bool libgit2_ignores(git_repository* repo, const fs::path& relative, bool is_directory) {
  std::string path = relative.generic_string();
  if (path.empty() || path == "." || path.starts_with("../")) return false;
  if (is_directory) path += '/';
  int ignored = 0;
  return libgit2()->ignore_path_is_ignored(&ignored, repo, path.c_str()) == 0 && ignored == 1;
}

}  // namespace

IgnoreFiles::Matcher::~Matcher() { libgit2()->repository_free(repo); }

IgnoreFiles::IgnoreFiles() = default;

IgnoreFiles::~IgnoreFiles() = default;

const Libgit2* IgnoreFiles::git() {
  const Libgit2* git = libgit2();
  if (git == nullptr && !reported_no_libgit2_) {
    reported_no_libgit2_ = true;
    problems_.push_back("ignore files are not applied: libgit2 could not be loaded (" +
                        libgit2_problem() + ")");
  }
  return git;
}

const IgnoreFiles::Matcher* IgnoreFiles::open_repository(const fs::path& dir) {
  const Libgit2* git = this->git();
  if (git == nullptr) return nullptr;
  git_repository* repo = nullptr;
  if (git->repository_open_ext(&repo, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
    return nullptr;
  }
  const char* workdir = git->repository_workdir(repo);
  if (workdir == nullptr) {  // a bare repository has no work tree to ignore files in
    git->repository_free(repo);
    return nullptr;
  }
  auto matcher = std::make_unique<Matcher>();
  matcher->repo = repo;
  matcher->base = fs::path(workdir).lexically_normal();
  if (!matcher->base.has_filename()) matcher->base = matcher->base.parent_path();
  matchers_.push_back(std::move(matcher));
  return matchers_.back().get();
}

const IgnoreFiles::Matcher* IgnoreFiles::load_dot_ignore(const fs::path& dir) {
  std::ifstream in(dir / ".ignore", std::ios::binary);
  if (!in) return nullptr;
  const std::string rules{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const Libgit2* git = this->git();
  if (git == nullptr) return nullptr;
  // An empty configuration keeps the user's git settings out of a file git never reads.
  git_repository* repo = nullptr;
  git_config* config = nullptr;
  if (git->repository_new(&repo) != 0) return nullptr;
  auto matcher = std::make_unique<Matcher>();
  matcher->repo = repo;
  matcher->base = dir;
  if (git->config_new(&config) != 0) return nullptr;
  git->repository_set_config(repo, config);
  git->config_free(config);
  if (git->ignore_add_rule(repo, rules.c_str()) != 0) return nullptr;
  matchers_.push_back(std::move(matcher));
  return matchers_.back().get();
}

const IgnoreFiles::Directory& IgnoreFiles::directory(const fs::path& absolute) {
  if (auto found = directories_.find(absolute); found != directories_.end()) return found->second;
  Directory dir;
  std::error_code ec;
  dir.real = fs::canonical(absolute, ec);
  if (ec) dir.real = absolute;
  if (absolute.has_relative_path()) {
    const Directory& parent = directory(absolute.parent_path());
    dir.git = parent.git;
    dir.dot_ignores = parent.dot_ignores;
  }
  // A nested repository (a submodule, a vendored checkout) has its own ignore files.
  if (fs::exists(dir.real / ".git", ec)) {
    if (const Matcher* repo = open_repository(dir.real)) dir.git = repo;
  }
  // libgit2 reads each folder's `.gitignore` itself, and would block on a FIFO: below a folder
  // whose ignore file is not a regular file, git's patterns are not applied, and the run says so.
  for (const char* name : {".gitignore", ".ignore"}) {
    const fs::file_status status = fs::status(dir.real / name, ec);
    if (ec || !fs::exists(status) || fs::is_regular_file(status)) continue;
    problems_.push_back((absolute / name).string() +
                        ": not a regular file; its patterns are not applied (nor git's below it)");
    dir.git = nullptr;
    dir.dot_ignores.clear();
  }
  if (fs::is_regular_file(dir.real / ".ignore", ec)) {
    if (const Matcher* own = load_dot_ignore(dir.real))
      dir.dot_ignores.insert(dir.dot_ignores.begin(), own);
  }
  return directories_.emplace(absolute, std::move(dir)).first->second;
}

bool IgnoreFiles::ignored(const fs::path& absolute, bool is_directory) {
  if (!absolute.has_relative_path()) return false;
  const Directory& parent = directory(absolute.parent_path());
  const fs::path real = parent.real / absolute.filename();
  if (parent.git != nullptr &&
      libgit2_ignores(parent.git->repo, real.lexically_relative(parent.git->base), is_directory)) {
    return true;
  }
  for (const Matcher* dot_ignore : parent.dot_ignores) {
    if (libgit2_ignores(dot_ignore->repo, real.lexically_relative(dot_ignore->base),
                        is_directory)) {
      return true;
    }
  }
  return false;
}

}  // namespace gpulint
