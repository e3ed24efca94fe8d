// One helper, one finding: a rule's findings in a helper that a step loop calls are reported
// once, at the first, with the others as related locations; suppressions apply first.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzer/core/selection.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

std::vector<Diagnostic> lint(const std::string& text, const std::vector<std::string>& select) {
  Selection selection = Selection::parse(all_rules(), select, {});
  return lint_source(SourceFile("t.py", text), selection.enabled());
}

std::string training_loop(const std::string& helper) {
  return "import sys\nimport torch\n\n\n" + helper +
         "\n\nmodel = torch.nn.Linear(8, 8).cuda()\n"
         "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
         "for i in range(100):\n"
         "    x = torch.randn(4, 8, device=\"cuda\")\n"
         "    loss = model(x).sum()\n"
         "    loss.backward()\n"
         "    opt.step()\n"
         "    report(x)\n";
}

// Lines 5 to 8 hold the helper.
constexpr const char* kWrites =
    "def report(x):\n"
    "    sys.stdout.write(\"a\")\n"
    "    sys.stdout.write(\"b\")\n"
    "    sys.stdout.write(\"c\")";

std::vector<uint32_t> related_lines(const Diagnostic& d) {
  std::vector<uint32_t> lines;
  for (const Related& r : d.related) lines.push_back(r.location.start.line);
  return lines;
}

TEST(HelperFindings, ARulesFindingsInOneHelperAreOne) {
  const std::vector<Diagnostic> found = lint(training_loop(kWrites), {"GL104"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].location.start.line, 6u);
  // The call site in the loop, then the helper's other writes.
  EXPECT_EQ(related_lines(found[0]), (std::vector<uint32_t>{17, 7, 8}));
  EXPECT_EQ(found[0].related[1].message, "the same in this helper here");
}

TEST(HelperFindings, EachRuleKeepsItsOwnFinding) {
  const std::string helper =
      "def report(x):\n"
      "    sys.stdout.write(\"a\")\n"
      "    n = torch.nonzero(x)\n"
      "    sys.stdout.write(\"b\")";
  const std::vector<Diagnostic> found = lint(training_loop(helper), {"GL104", "GL106"});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].code, "GL104");
  EXPECT_EQ(related_lines(found[0]), (std::vector<uint32_t>{17, 8}));
  EXPECT_EQ(found[1].code, "GL106");
  EXPECT_EQ(related_lines(found[1]), (std::vector<uint32_t>{17}));
}

// A suppressed line is no finding to group: the next one stands on its own, and the
// suppression is used (no GL001).
TEST(HelperFindings, SuppressionsApplyBeforeGrouping) {
  std::string helper = kWrites;
  helper.replace(helper.find("(\"a\")") + 5, 0, "  # noqa: GL104");
  const std::vector<Diagnostic> found = lint(training_loop(helper), {"GL104", "GL001"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "GL104");
  EXPECT_EQ(found[0].location.start.line, 7u);
  EXPECT_EQ(related_lines(found[0]), (std::vector<uint32_t>{17, 8}));
}

// Lines of the step loop itself are each their own finding, as before.
TEST(HelperFindings, TheLoopsOwnLinesStaySeparate) {
  std::string text = training_loop("def report(x):\n    pass");
  text += "    sys.stdout.write(\"a\")\n    sys.stdout.write(\"b\")\n";
  EXPECT_EQ(lint(text, {"GL104"}).size(), 2u);
}

// A chain of helpers deeper than StepContext::kViaMax shows its outermost and innermost call
// sites and counts the ones between: each helper's finding would otherwise list the whole
// chain, and a generated file of 5,000 chained helpers printed 660 MB.
TEST(HelperFindings, ADeepChainOfHelpersIsShownInPart) {
  constexpr int kDepth = 40;
  std::string helpers = "def h0(x):\n    sys.stdout.write(\"a\")";
  for (int i = 1; i < kDepth; ++i) {
    helpers += "\n\n\ndef h" + std::to_string(i) + "(x):\n    h" + std::to_string(i - 1) + "(x)";
  }
  helpers += "\n\n\ndef report(x):\n    h" + std::to_string(kDepth - 1) + "(x)";
  const std::vector<Diagnostic> found = lint(training_loop(helpers), {"GL104"});
  ASSERT_EQ(found.size(), 1u);
  const std::vector<Related>& related = found[0].related;
  ASSERT_EQ(related.size(), 12u);
  EXPECT_EQ(related[0].message, "called from the step loop here");
  EXPECT_EQ(related[6].message, "which calls it here, through 29 calls not shown");
  // The innermost shown is the call of the helper that writes.
  EXPECT_EQ(related.back().location.start.line, 10u);
}

}  // namespace
}  // namespace gpulint
