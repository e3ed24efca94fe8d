// The Clang path: fixtures under fixtures/cpp/clang/ compiled against the mock LibTorch headers
// in fixtures/cpp/include/ through a compile database written into a temporary directory, bad
// databases and headers, and (slow, ~12 s a file) fixtures compiled against Debian's real
// libtorch-dev headers through a CMake-generated compile database.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cpp/front_end.h"
#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/expectations.h"
#include "tests/fixture_selection.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir() { return fs::path(GPULINT_SOURCE_DIR); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpulint-cpp-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets -p for one test and clears it after, so other tests find no database.
class DatabaseDir {
 public:
  explicit DatabaseDir(const fs::path& dir) { cpp::set_compile_database_dir(dir.string()); }
  ~DatabaseDir() { cpp::set_compile_database_dir(""); }
};

void write_database(const fs::path& dir, const std::vector<fs::path>& files,
                    const std::string& flags) {
  std::ofstream out(dir / "compile_commands.json");
  out << "[\n";
  for (size_t i = 0; i < files.size(); ++i) {
    out << "  {\"directory\": \"" << source_dir().string() << "\", \"file\": \""
        << files[i].string() << "\", \"command\": \"g++ " << flags << " -c " << files[i].string()
        << " -o /dev/null\"}" << (i + 1 < files.size() ? "," : "") << "\n";
  }
  out << "]\n";
}

// Compares one file's findings in `result` with its `// expect:` markers.
void expect_markers(const fs::path& file, const LintResult& result) {
  const expect::ParsedExpectations parsed = expect::parse_expectations(read_file(file), "//");
  std::vector<expect::Actual> actuals;
  for (const Diagnostic& d : result.diagnostics) {
    if (d.location.path == file.string())
      actuals.push_back({d.code, d.location.start.line, d.location.start.column, d.message});
  }
  const expect::MatchResult match = expect::match(parsed.expectations, actuals);
  for (const expect::Expectation& e : match.missing)
    ADD_FAILURE() << file.string() << ":" << e.line << ": missing " << e.code << " " << e.fragment;
  for (const expect::Actual& a : match.unexpected)
    ADD_FAILURE() << file.string() << ":" << a.line << ":" << a.column << ": unexpected " << a.code
                  << ": " << a.message;
  for (const expect::Expectation& e : match.now_reported)
    ADD_FAILURE() << file.string() << ":" << e.line << ": " << e.code
                  << " is found now; flip its known-miss marker to expect";
}

// Lints `files` in one run, as `gpulint` does (so files sharing a preamble share its PCH), with
// the default rules plus the opt-in ones their markers name, and checks each file's markers.
void expect_markers(const std::vector<fs::path>& files) {
  std::set<std::string> marked;
  std::vector<std::string> paths;
  for (const fs::path& file : files) {
    for (const expect::Expectation& e :
         expect::parse_expectations(read_file(file), "//").expectations)
      marked.insert(e.code);
    paths.push_back(file.string());
  }
  const RuleSet rule_set = fixture::rule_set(marked, {});
  LintOptions options;
  options.rules = rule_set.rules;
  options.jobs = 2;
  const LintResult result = lint_files(paths, options);
  for (const FileError& e : result.errors) ADD_FAILURE() << e.path << ": " << e.message;
  for (const fs::path& file : files) expect_markers(file, result);
}

std::vector<fs::path> clang_fixtures() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(source_dir() / "fixtures/cpp/clang"))
    if (entry.path().extension() == ".cpp") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CppClang, MockHeaderFixturesMatchTheirMarkers) {
  TempDir dir;
  const std::vector<fs::path> files = clang_fixtures();
  ASSERT_FALSE(files.empty());
  write_database(dir.path(), files,
                 "-std=c++17 -I" + (source_dir() / "fixtures/cpp/include").string());
  DatabaseDir database(dir.path());
  expect_markers(files);
}

// The 1-based line of the first occurrence of `needle` in `text`.
uint32_t line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

// A finding in a helper names the call that makes it per-step, whichever overload, template or
// method Clang says that call reaches.
TEST(CppClang, AFindingInAnOverloadTemplateOrMethodNamesTheCallThatReachesIt) {
  struct Case {
    std::string finding;  // the text on the finding's line
    std::string call;     // the text on the line of the call it must name
  };
  const std::vector<std::pair<std::string, std::vector<Case>>> fixtures = {
      {"call_graph_templates_overloads.cpp",
       {{"std::cout << loss.item<float>()", "log_step(model, loss);"},
        {"return t.item<T>()", "peek<float>(loss)"},
        {"float value = loss.item<float>();  // expect", "record(loss);"},
        {"torch::cuda::synchronize();  // expect", "helpers::sync_now();"},
        {"float v = value.item<float>();", "describe(loss);"}}},
      {"call_graph_methods.cpp",
       {{"float value = loss.item<float>();  // expect", "logger_.write(loss);"},
        {"emptyCache();", "logger_.flush(loss);"},
        {"torch::cuda::synchronize();", "this->sync();"},
        {"std::cout << loss.item<float>()", "log_loss(loss);"}}}};
  TempDir dir;
  std::vector<fs::path> files;
  for (const auto& [name, cases] : fixtures)
    files.push_back(source_dir() / "fixtures/cpp/clang" / name);
  write_database(dir.path(), files,
                 "-std=c++17 -I" + (source_dir() / "fixtures/cpp/include").string());
  DatabaseDir database(dir.path());
  LintOptions options;
  for (const Rule* rule : all_rules()) {
    if (rule->info.default_on) options.rules.push_back(rule);
  }
  const LintResult result = lint_files({files[0].string(), files[1].string()}, options);
  for (size_t f = 0; f < files.size(); ++f) {
    const std::string text = read_file(files[f]);
    for (const Case& c : fixtures[f].second) {
      SCOPED_TRACE(files[f].filename().string() + ": " + c.finding);
      const uint32_t finding = line_of(text, c.finding), call = line_of(text, c.call);
      const auto d = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                                  [&](const Diagnostic& d) {
                                    return d.location.path == files[f].string() &&
                                           d.code != "GL104" && d.location.start.line == finding;
                                  });
      ASSERT_NE(d, result.diagnostics.end());
      ASSERT_EQ(d->related.size(), 1u);
      EXPECT_EQ(d->related.front().location.start.line, call);
    }
  }
}

// Copies `fixture` into `dir` under `count` names, listed in a compile database there.
std::vector<fs::path> copies(const fs::path& dir, const std::string& fixture, int count) {
  std::vector<fs::path> files;
  for (int i = 0; i < count; ++i) {
    files.push_back(dir / ("copy_" + std::to_string(i) + ".cpp"));
    fs::copy_file(source_dir() / "fixtures/cpp/clang" / fixture, files.back());
  }
  write_database(dir, files, "-std=c++17 -I" + (source_dir() / "fixtures/cpp/include").string());
  return files;
}

bool resolves_synchronize(const cpp::Resolution& r) {
  return std::any_of(r.callees.begin(), r.callees.end(),
                     [](const auto& c) { return c.second == "torch::cuda::synchronize"; });
}

TEST(CppClang, FilesOfARunThatShareTheirIncludesParseOnOnePch) {
  TempDir dir;
  const std::vector<fs::path> files = copies(dir.path(), "resolved_names.cpp", 3);
  DatabaseDir database(dir.path());
  cpp::plan_clang_run({files.begin(), files.end()});
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const auto r = cpp::resolve_with_clang(file.string(), read_file(file));
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->shared_preamble);
    EXPECT_EQ(r->error, "");
    EXPECT_TRUE(resolves_synchronize(*r));  // through `using namespace` and a macro, on the PCH
  }
}

TEST(CppClang, AFileAloneInItsRunParsesWhole) {
  TempDir dir;
  const std::vector<fs::path> files = copies(dir.path(), "resolved_names.cpp", 1);
  DatabaseDir database(dir.path());
  cpp::plan_clang_run({files.front().string()});
  const auto r = cpp::resolve_with_clang(files.front().string(), read_file(files.front()));
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->shared_preamble);
  EXPECT_TRUE(resolves_synchronize(*r));
}

// Standard input and an editor's unsaved buffer: Clang analyses the text it is given, not
// what the path holds on disk.
TEST(CppClang, TheTextGivenIsAnalysedNotTheFileOnDisk) {
  TempDir dir;
  const std::vector<fs::path> files = copies(dir.path(), "resolved_names.cpp", 1);
  const std::string text = read_file(files.front());
  std::ofstream(files.front(), std::ios::trunc) << "int unrelated() { return 0; }\n";
  DatabaseDir database(dir.path());
  cpp::plan_clang_run({files.front().string()});
  const auto r = cpp::resolve_with_clang(files.front().string(), text);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, "");
  EXPECT_TRUE(resolves_synchronize(*r));
}

// Callers that announce nothing (lint_source, a test): the second file builds the PCH.
TEST(CppClang, UnannouncedFilesShareThePchFromTheSecondOn) {
  TempDir dir;
  const std::vector<fs::path> files = copies(dir.path(), "resolved_names.cpp", 2);
  DatabaseDir database(dir.path());
  cpp::plan_clang_run({});
  const auto first = cpp::resolve_with_clang(files[0].string(), read_file(files[0]));
  const auto second = cpp::resolve_with_clang(files[1].string(), read_file(files[1]));
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_FALSE(first->shared_preamble);
  EXPECT_TRUE(second->shared_preamble);
  EXPECT_EQ(first->callees, second->callees);
}

// The shared block names a header that is not there: no PCH, each file parses whole and says so.
TEST(CppClang, APreambleThatCannotBeBuiltFallsBackToWholeParses) {
  TempDir dir;
  const std::vector<fs::path> files = copies(dir.path(), "missing_header.cpp", 2);
  DatabaseDir database(dir.path());
  cpp::plan_clang_run({files.begin(), files.end()});
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const auto r = cpp::resolve_with_clang(file.string(), read_file(file));
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(r->shared_preamble);
    EXPECT_NE(r->error.find("not_installed/anywhere.h"), std::string::npos) << r->error;
  }
}

TEST(CppClang, BrokenDatabaseIsReportedAndSyntaxStillAnalyses) {
  TempDir dir;
  std::ofstream(dir.path() / "compile_commands.json") << "[{\"directory\": 3";
  DatabaseDir database(dir.path());
  const fs::path file = source_dir() / "fixtures/cpp/GL102_GL103_GL107_syncs_in_loop.cpp";
  LintOptions options;
  for (const Rule* rule : all_rules()) {
    if (rule->info.default_on) options.rules.push_back(rule);
  }
  const LintResult result = lint_files({file.string()}, options);
  bool gl000 = false, gl103 = false;
  for (const Diagnostic& d : result.diagnostics) {
    gl000 |= d.code == "GL000" && d.message.find("could not be read") != std::string::npos;
    gl103 |= d.code == "GL103";
  }
  EXPECT_TRUE(gl000);
  EXPECT_TRUE(gl103);
}

TEST(CppClang, FileOutsideTheDatabaseIsAnalysedBySyntax) {
  TempDir dir;
  write_database(dir.path(), {source_dir() / "fixtures/cpp/clang/resolved_names.cpp"}, "");
  DatabaseDir database(dir.path());
  const size_t before = cpp::syntax_only_files.load();
  const fs::path file = source_dir() / "fixtures/cpp/GL101_item_in_loop.cpp";
  const std::string text = read_file(file);
  EXPECT_FALSE(cpp::resolve_with_clang(file.string(), text).has_value());
  cpp::build_model_for_file(file.string(), text);
  EXPECT_EQ(cpp::syntax_only_files.load(), before + 1);
}

// Slow: building the PCH of torch/torch.h the two files share costs about 14 s on this machine.
TEST(CppClangLibTorch, RealHeadersThroughACMakeDatabase) {
  const fs::path torch = "/usr/include/torch/csrc/api/include/torch/torch.h";
  if (!fs::exists(torch)) GTEST_SKIP() << "Debian's libtorch-dev is not installed";
  TempDir dir;
  const std::string configure = "cmake -S " + (source_dir() / "fixtures/cpp/libtorch").string() +
                                " -B " + dir.path().string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(configure.c_str()), 0) << configure;
  ASSERT_TRUE(fs::exists(dir.path() / "compile_commands.json"));
  DatabaseDir database(dir.path());
  const fs::path realistic = source_dir() / "fixtures/cpp/realistic";
  expect_markers({realistic / "mnist.cpp", realistic / "regression.cpp"});
  // mnist.cpp and regression.cpp begin with the same #include block: the run built one PCH of
  // torch/torch.h, and both resolve LibTorch's names on it.
  const std::vector<std::string> shared = {(realistic / "mnist.cpp").string(),
                                           (realistic / "regression.cpp").string()};
  cpp::plan_clang_run(shared);
  for (const std::string& file : shared) {
    SCOPED_TRACE(file);
    const auto r = cpp::resolve_with_clang(file, read_file(file));
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->shared_preamble);
    EXPECT_EQ(r->error, "");
    EXPECT_TRUE(std::any_of(r->callees.begin(), r->callees.end(),
                            [](const auto& c) { return c.second == "at::Tensor::item"; }));
  }
}

}  // namespace
}  // namespace gpulint
