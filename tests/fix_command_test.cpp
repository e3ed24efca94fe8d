// --fix, --unsafe-fixes, --diff and --fix-only through the real binary (issue 23): fixes are
// applied round by round until nothing more applies, written atomically (mode kept, through a
// symlink), and a second --fix changes nothing. apply_fixes' choice among overlapping fixes is
// tested on its own.

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "analyzer/fixes/apply.h"
#include "tests/cli_harness.h"

namespace gpulint::testing {
namespace {

const char kLoop[] = R"(import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(8, 8).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)
for x, y in loader:
    x = x.cuda()
    loss = model(x).sum()
    loss.backward()
    opt.step()
)";

class FixCommand : public GpulintRun {
 protected:
  std::string read(const std::string& name) { return slurp(work_ / name); }
};

TEST_F(FixCommand, DiffShowsTheFixesAndChangesNothing) {
  write("train.py", kLoop);
  const Result diff = run({"--diff", "train.py"});
  EXPECT_EQ(diff.status, 1) << diff.err;
  EXPECT_NE(diff.out.find("--- train.py\n+++ train.py\n@@ "), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("+loader = DataLoader(dataset, batch_size=64, pin_memory=True)\n"),
            std::string::npos)
      << diff.out;
  EXPECT_NE(diff.err.find("Would fix 1 finding."), std::string::npos) << diff.err;
  EXPECT_EQ(read("train.py"), kLoop);
  // The unsafe fix (num_workers) only when asked; it and the safe one insert at one place, so
  // they take two rounds.
  const Result unsafe = run({"--diff", "--unsafe-fixes", "train.py"});
  EXPECT_NE(unsafe.out.find("DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)"),
            std::string::npos)
      << unsafe.out;
  EXPECT_EQ(run({"--diff", "--select", "GL101", "train.py"}).status, 0);  // nothing to fix
}

TEST_F(FixCommand, FixWritesKeepsModeFollowsSymlinksAndSettles) {
  write("real/train.py", kLoop);
  ASSERT_EQ(::chmod((work_ / "real/train.py").c_str(), 0640), 0);
  std::filesystem::create_symlink("real/train.py", work_ / "train.py");
  const Result fixed = run({"--fix", "--unsafe-fixes", "--select", "GL201,GL202", "train.py"});
  EXPECT_EQ(fixed.status, 0) << fixed.out << fixed.err;  // the fixes leave nothing of these
  EXPECT_NE(fixed.out.find("Fixed 2 findings."), std::string::npos) << fixed.out;
  EXPECT_TRUE(std::filesystem::is_symlink(work_ / "train.py"));
  const std::string after = read("real/train.py");
  EXPECT_NE(after.find("DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)"),
            std::string::npos)
      << after;
  struct stat st {};
  ASSERT_EQ(::stat((work_ / "real/train.py").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  // A second --fix finds nothing to change; --fix-only says how many it applied.
  const Result again = run({"--fix-only", "--unsafe-fixes", "--select", "GL201,GL202", "train.py"});
  EXPECT_EQ(again.status, 0);
  EXPECT_EQ(again.out, "Fixed 0 findings.\n");
  EXPECT_EQ(read("real/train.py"), after);
}

TEST_F(FixCommand, StandardInputIsPrintedFixed) {
  write("buffer.txt", kLoop);
  const Result r = run({"--fix", "-", "--stdin-filename", "train.py"}, "", "buffer.txt");
  EXPECT_EQ(r.status, 1) << r.err;  // the unsafe GL201 remains
  std::string expected = kLoop;
  expected.replace(expected.find("batch_size=64)"), 14, "batch_size=64, pin_memory=True)");
  EXPECT_EQ(r.out, expected);
  EXPECT_NE(r.err.find("GL201"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work_ / "train.py"));
}

Diagnostic with_fix(uint32_t begin, uint32_t end, std::string replacement,
                    Applicability applicability = Applicability::Safe) {
  Diagnostic d;
  d.fix = Fix{"", applicability, {{{begin, end}, std::move(replacement)}}};
  return d;
}

TEST(ApplyFixes, OverlappingFixesWaitForTheNextRound) {
  const std::string text = "abcdef";
  const Diagnostic first = with_fix(1, 3, "X");
  const Diagnostic overlapping = with_fix(2, 4, "Y");
  const Diagnostic same_place = with_fix(1, 1, "Z");
  const Diagnostic unsafe = with_fix(5, 6, "U", Applicability::Unsafe);
  const Diagnostic outside = with_fix(4, 99, "W");
  const FixedText safe = apply_fixes(text, {&first, &overlapping, &same_place, &unsafe, &outside},
                                     /*unsafe=*/false);
  EXPECT_EQ(safe.text, "aXdef");
  EXPECT_EQ(safe.applied, 1u);
  const FixedText all = apply_fixes(text, {&unsafe, &first}, /*unsafe=*/true);
  EXPECT_EQ(all.text, "aXdeU");
  EXPECT_EQ(all.applied, 2u);
}

TEST(ApplyFixes, UnifiedDiffNamesTheFile) {
  EXPECT_EQ(unified_diff("a.py", "x\n", "x\n"), "");
  EXPECT_EQ(unified_diff("a.py", "x = 1\n", "x = 2\n"),
            "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n");
}

}  // namespace
}  // namespace gpulint::testing
