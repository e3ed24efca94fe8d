// Suppression comments, and GL001 (unused suppression) with the rule enabled.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/core/selection.h"
#include "analyzer/core/suppressions.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

std::vector<Diagnostic> lint(const std::string& text, const std::vector<std::string>& select) {
  Selection selection = Selection::parse(all_rules(), select, {});
  return lint_source(SourceFile("t.py", text), selection.enabled());
}

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(GPULINT_SOURCE_DIR) / "fixtures" / "python" / name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Suppressions, FormsAndPrefixes) {
  const std::string text =
      "a = 1  # gpulint: ignore[GL1]\n"
      "# gpulint: ignore\n"
      "\n"
      "b = 2\n"
      "c = 3  # noqa: E501, GL303\n"
      "d = 4  # noqa\n"
      "# gpulint: file-ignore[GL201]\n";
  SourceFile file("t.py", text);
  std::vector<Comment> comments;
  for (size_t at = text.find('#'); at != std::string::npos; at = text.find('#', at + 1)) {
    size_t end = text.find('\n', at);
    bool own = at == 0 || text[at - 1] == '\n';
    comments.push_back({{static_cast<uint32_t>(at), static_cast<uint32_t>(end)}, own});
  }
  Suppressions s = Suppressions::parse(file, comments);
  EXPECT_TRUE(s.suppressed("GL101", 1));
  EXPECT_TRUE(s.suppressed("GL404", 4));    // bare ignore on its own line: the next code line
  EXPECT_TRUE(s.suppressed("GL303", 5));    // noqa with a gpulint code
  EXPECT_FALSE(s.suppressed("GL303", 6));   // bare noqa belongs to other tools
  EXPECT_TRUE(s.suppressed("GL201", 100));  // file-wide
}

TEST(Suppressions, UnusedSuppressionFiresOnlyWhenEnabled) {
  const std::string text = read_fixture("GL001_unused_suppression.py");
  size_t with = 0, without = 0;
  for (const Diagnostic& d : lint(text, {"ALL"})) with += d.code == "GL001";
  for (const Diagnostic& d : lint(text, {})) without += d.code == "GL001";
  EXPECT_EQ(with, 2u);
  EXPECT_EQ(without, 0u);
}

TEST(Suppressions, UsedOrUnjudgeableSuppressionsAreSilentWithGL001On) {
  for (const char* name : {"GL001_used_suppression_silent.py", "GL001_file_ignore_silent.py"}) {
    // GL405 is opt-in and not selected here, so `# noqa: GL405` cannot be judged.
    for (const Diagnostic& d : lint(read_fixture(name), {"GL0", "GL1", "GL2", "GL3"})) {
      EXPECT_NE(d.code, "GL001") << name << ":" << d.location.start.line << " " << d.message;
    }
  }
}

}  // namespace
}  // namespace gpulint
