// Issue 22: ways gpulint could lose findings, hang or overwrite what it should not, each made
// here as a user meets it (a compile database beside other files, a FIFO, a device node, a
// symlink, an unreadable directory) and run through the real binary.

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/cli_harness.h"

namespace gpulint::testing {
namespace {

class Reliability : public GpulintRun {
 protected:
  static std::string training_script(int n) {
    return "import torch\n"
           "model = torch.nn.Linear(8, 8).cuda()\n"
           "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "for step in range(100):\n"
           "    loss = model(torch.randn(4, 8, device=\"cuda\")).sum() * " +
           std::to_string(n) +
           "\n"
           "    loss.backward()\n"
           "    opt.step()\n"
           "    print(loss.item())\n";
  }

  // Each finding of one file as CODE@line:column, in report order.
  std::vector<std::string> places(const char* name) {
    const nlohmann::json report = parse_json(run({"--no-cache", "--format", "json", name}));
    std::vector<std::string> out;
    for (const auto& d : report["diagnostics"]) {
      out.push_back(d["code"].get<std::string>() + "@" + std::to_string(d["line"].get<int>()) +
                    ":" + std::to_string(d["column"].get<int>()));
    }
    return out;
  }
};

// Clang enters the database entry's directory for its file; other workers of the same run open
// relative paths meanwhile. Same output for every -j, and every file read.
TEST_F(Reliability, ClangWorkersLeaveTheWorkingDirectoryAlone) {
  const std::string include = (fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/include").string();
  fs::create_directories(work_ / "build");
  write("src/step.cpp",
        slurp(fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/GL101_item_in_loop.cpp"));
  write("compile_commands.json", "[{\"directory\": \"" + (work_ / "build").string() +
                                     "\", \"file\": \"../src/step.cpp\", \"command\": \"g++ "
                                     "-std=c++17 -I" +
                                     include + " -c ../src/step.cpp -o step.o\"}]\n");
  for (int i = 0; i < 60; ++i) write("train_" + std::to_string(i) + ".py", training_script(i));
  const Result one = run({"--no-cache", "-j", "1", "--format", "json", "."});
  for (const char* jobs : {"2", "4"}) {
    const Result many = run({"--no-cache", "-j", jobs, "--format", "json", "."});
    EXPECT_EQ(many.err.find("cannot be read"), std::string::npos) << many.err;
    EXPECT_EQ(many.out, one.out) << "-j " << jobs;
    EXPECT_EQ(many.status, one.status);
  }
  EXPECT_EQ(one.err.find("cannot be read"), std::string::npos) << one.err;
  size_t cpp_findings = 0;
  const nlohmann::json report = parse_json(one);
  for (const auto& d : report["diagnostics"])
    cpp_findings += d["path"] == "src/step.cpp" && d["code"] == "GL101";
  EXPECT_GT(cpp_findings, 0u) << "the C++ file went through Clang and was analysed";
}

// A regular report file is replaced whole and keeps its mode; through a symlink, the file it
// points to is written and the link stays a link.
TEST_F(Reliability, OutputFileKeepsModeAndFollowsSymlinks) {
  write("train.py", training_script(1));
  write("reports/report.txt", "old\n");
  fs::permissions(work_ / "reports/report.txt", fs::perms(0640), fs::perm_options::replace);
  fs::create_symlink("reports/report.txt", work_ / "latest.txt");
  const Result r = run({"--no-cache", "--output-file", "latest.txt", "train.py"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(work_ / "latest.txt")));
  EXPECT_NE(slurp(work_ / "reports/report.txt").find("GL101"), std::string::npos);
  EXPECT_EQ(fs::status(work_ / "reports/report.txt").permissions(), fs::perms(0640));
  fs::remove(work_ / "reports/report.txt");
  const Result created = run({"--no-cache", "--output-file", "latest.txt", "train.py"});
  EXPECT_EQ(created.status, 1) << created.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(work_ / "latest.txt")));
  EXPECT_NE(slurp(work_ / "reports/report.txt").find("GL101"), std::string::npos);
}

// A FIFO is written through (a reader gets the report) and stays a FIFO; `-` is stdout.
TEST_F(Reliability, OutputFileWritesThroughAFifoAndDash) {
  write("train.py", training_script(1));
  ASSERT_EQ(::mkfifo((work_ / "pipe").c_str(), 0600), 0);
  const std::string reader = "cat " + quote((work_ / "pipe").string()) + " > " +
                             quote((root_ / "from-pipe").string()) + " &";
  ASSERT_EQ(std::system(reader.c_str()), 0);
  const Result r = run({"--no-cache", "--output-file", "pipe", "train.py"});
  EXPECT_EQ(r.status, 1) << r.err;
  struct stat st;
  ASSERT_EQ(::lstat((work_ / "pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  for (int i = 0; i < 100 && slurp(root_ / "from-pipe").find("Found") == std::string::npos; ++i)
    ::usleep(20000);
  EXPECT_NE(slurp(root_ / "from-pipe").find("GL101"), std::string::npos);
  const Result dash = run({"--no-cache", "--output-file", "-", "train.py"});
  EXPECT_NE(dash.out.find("GL101"), std::string::npos);
  EXPECT_FALSE(fs::exists(work_ / "-"));
}

// A character device that fails the write (ENOSPC, as /dev/full) is an error, exit 2, and is
// still a device afterwards. Made with mknod in a private mount namespace, so a regression
// cannot replace the machine's own /dev/full; needs root and unshare, skipped otherwise.
TEST_F(Reliability, OutputFileOnAFullDeviceIsAnErrorAndTheNodeStays) {
  if (::geteuid() != 0 || std::system("unshare -m true 2>/dev/null") != 0)
    GTEST_SKIP() << "needs root and unshare -m for a private device node";
  write("train.py", training_script(1));
  const fs::path dev = root_ / "dev";
  fs::create_directories(dev);
  const std::string script =
      "cd " + quote(work_.string()) + " && unshare -m sh -c " +
      quote("mount -t tmpfs none " + quote(dev.string()) + " && mknod " +
            quote((dev / "full").string()) + " c 1 7 && " + quote(GPULINT_BINARY) +
            " --no-cache --output-file " + quote((dev / "full").string()) + " train.py 2>" +
            quote((root_ / "err").string()) + "; echo $? > " + quote((root_ / "rc").string()) +
            "; stat -c %F " + quote((dev / "full").string()) + " > " +
            quote((root_ / "kind").string()));
  ASSERT_EQ(std::system(script.c_str()), 0);
  EXPECT_EQ(slurp(root_ / "rc"), "2\n");
  EXPECT_EQ(slurp(root_ / "kind"), "character special file\n");
  EXPECT_NE(slurp(root_ / "err").find("No space left on device"), std::string::npos)
      << slurp(root_ / "err");
}

// Only regular files are read: a FIFO or a device named on the command line is an error at
// once (no hang, no read without end), and a file over the size limit is skipped with a note.
TEST_F(Reliability, SpecialFilesAreRefusedAndLargeFilesSkipped) {
  ASSERT_EQ(::mkfifo((work_ / "pipe.py").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", work_ / "zero.py");
  for (const char* name : {"pipe.py", "zero.py"}) {
    const Result r = run({"--no-cache", name});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
  write("big.py", std::string(3000, '#') + "\n" + training_script(1));
  const Result big = run({"--no-cache", "--max-file-size", "2KB", "big.py"});
  EXPECT_EQ(big.status, 0) << big.err;
  EXPECT_NE(big.err.find("note: big.py: 3.2"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("kB, over the 2 kB limit"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("(--max-file-size); skipped"), std::string::npos) << big.err;
  EXPECT_EQ(run({"--no-cache", "big.py"}).status, 1);
}

// libgit2 reads each folder's .gitignore itself; a FIFO there must not hang the walk.
TEST_F(Reliability, AFifoIgnoreFileIsAnErrorNotAHang) {
  ASSERT_EQ(std::system(("git init -q " + quote(work_.string())).c_str()), 0);
  ASSERT_EQ(::mkfifo((work_ / ".gitignore").c_str(), 0600), 0);
  write("train.py", training_script(1));
  const Result r = run({"--no-cache", "."});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(".gitignore: not a regular file"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("GL101"), std::string::npos);
}

// One file named several ways is linted once: absolute and relative, a folder and a symlink.
TEST_F(Reliability, EachFileOnceByItsIdentity) {
  write("src/train.py", training_script(1));
  fs::create_directory_symlink("src", work_ / "alias");
  const Result once = run({"--no-cache", "--format", "json", "src"});
  const Result many = run({"--no-cache", "--format", "json", "src", "alias", "src/train.py",
                           (work_ / "src/train.py").string(), "./src/../src/train.py"});
  EXPECT_EQ(parse_json(many)["diagnostics"].size(), parse_json(once)["diagnostics"].size());
}

// A folder that cannot be read is an error, named or met in a walk, never "no files found".
TEST_F(Reliability, UnreadableFoldersAreErrors) {
  if (::geteuid() == 0 && std::system("command -v setpriv >/dev/null") != 0)
    GTEST_SKIP() << "root reads every folder, and setpriv is not there to drop it";
  write("ok/train.py", training_script(1));
  write("locked/train.py", training_script(2));
  fs::permissions(work_ / "locked", fs::perms::none, fs::perm_options::replace);
  fs::permissions(root_, fs::perms(0755), fs::perm_options::replace);
  fs::permissions(work_, fs::perms(0777), fs::perm_options::replace);
  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
  const Result named = run({"--no-cache", "locked"}, as_user);
  EXPECT_EQ(named.status, 2);
  EXPECT_NE(named.err.find("locked: cannot be read: Permission denied"), std::string::npos)
      << named.err;
  const Result walked = run({"--no-cache", "."}, as_user);
  EXPECT_EQ(walked.status, 2);
  EXPECT_NE(walked.err.find("locked: cannot be read"), std::string::npos) << walked.err;
  EXPECT_NE(walked.out.find("ok/train.py"), std::string::npos);
}

// Messages name the real cause.
TEST_F(Reliability, MissingPathsSayWhy) {
  fs::create_symlink("loop_b.py", work_ / "loop_a.py");
  fs::create_symlink("loop_a.py", work_ / "loop_b.py");
  fs::create_symlink("gone.py", work_ / "dangling.py");
  const Result r = run({"--no-cache", "loop_a.py", "dangling.py", "absent.py"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("loop_a.py: a symlink loop"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dangling.py: a symlink to nothing"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("absent.py: no such file or directory"), std::string::npos) << r.err;
}

// Lines end at LF, CRLF or a lone CR (classic Mac, which CPython reads): the same findings at
// the same lines and columns whichever a file uses.
TEST_F(Reliability, LineEndingsDoNotChangeFindings) {
  const std::string lf = "# a comment on the first line\n" + training_script(1);
  auto with = [&](const std::string& ending) {
    std::string out;
    for (char c : lf) out += c == '\n' ? ending : std::string(1, c);
    return out;
  };
  write("lf.py", lf);
  write("crlf.py", with("\r\n"));
  write("cr.py", with("\r"));

  const std::vector<std::string> expected = places("lf.py");
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(places("crlf.py"), expected);
  EXPECT_EQ(places("cr.py"), expected);
}

// A file larger than a part (64 KB) is parsed a part at a time: what the model and optimiser
// defined in the first part do in a step loop many parts later is found as in a small file.
// (tests/flat_tree_test.cpp checks the parts give the whole parse's tree.)
TEST_F(Reliability, LargeFilesParsedInPartsKeepTheirFindings) {
  const std::string script = training_script(1);
  const size_t loop = script.find("for step");
  const int loop_line = static_cast<int>(std::count(script.begin(), script.begin() + loop, '\n'));
  std::string filler;
  int filler_lines = 0;
  for (; filler.size() < 256 * 1024; filler_lines += 2) {
    filler += "def pad_" + std::to_string(filler_lines) + "():\n    return 1\n";
  }
  write("small.py", script);
  write("large.py", script.substr(0, loop) + filler + script.substr(loop));

  std::vector<std::string> expected;
  for (const std::string& place : places("small.py")) {
    const size_t at = place.find('@'), colon = place.find(':');
    int line = std::stoi(place.substr(at + 1, colon - at - 1));
    if (line > loop_line) line += filler_lines;
    expected.push_back(place.substr(0, at + 1) + std::to_string(line) + place.substr(colon));
  }
  EXPECT_GE(expected.size(), 2u);
  EXPECT_EQ(places("large.py"), expected);
}

// Whether a helper runs per step is asked of its callers, recursively: a class of 50,000
// methods, each calling the next, overflowed the stack while the file's model was built (a
// crash, whatever rules were selected). Callers more than a thousand deep are not followed.
TEST_F(Reliability, AVeryLongChainOfCallsDoesNotOverflowTheStack) {
  constexpr int kMethods = 50000;
  std::string text =
      "import torch\n"
      "class Stats:\n"
      "    def __init__(self):\n";
  for (int i = 0; i < kMethods; ++i)
    text += "        self.a" + std::to_string(i) + " = torch.zeros(1, device=\"cuda\")\n";
  for (int i = 0; i < kMethods; ++i) {
    text += "    def m" + std::to_string(i) + "(self):\n        return self.a" + std::to_string(i) +
            ".item() + self.m" + std::to_string(i + 1) + "()\n";
  }
  text +=
      "model = torch.nn.Linear(8, 8).cuda()\n"
      "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
      "stats = Stats()\n"
      "for step in range(100):\n"
      "    model(torch.randn(4, 8, device=\"cuda\")).sum().backward()\n"
      "    opt.step()\n"
      "    stats.m0()\n";
  write("chain.py", text);
  // One rule, so that the 50,000 .item() findings are not printed.
  const Result r = run({"--no-cache", "--select", "GL401", "chain.py"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("GL401"), std::string::npos) << r.out;
}

// The cache writes its own .gitignore only into a folder it created: pointed at the project
// root, it must not make git (and gpulint) ignore the whole repository.
TEST_F(Reliability, TheCacheNeverWritesIntoTheProject) {
  ASSERT_EQ(std::system(("git init -q " + quote(work_.string())).c_str()), 0);
  write("train.py", training_script(1));
  EXPECT_EQ(run({"."}, "GPULINT_CACHE_DIR=.").status, 1);
  EXPECT_FALSE(fs::exists(work_ / ".gitignore"));
  EXPECT_EQ(run({"."}, "GPULINT_CACHE_DIR=.").status, 1);  // still finds the file
  EXPECT_EQ(run({"--cache-dir", "fresh", "."}).status, 1);
  EXPECT_EQ(slurp(work_ / "fresh/.gitignore"), "# Automatically created by gpulint.\n*\n");
}

TEST_F(Reliability, ACacheFileThatIsAFolderSaysSo) {
  write("train.py", training_script(1));
  write("cache/keep", "");
  const Result first = run({"--cache-dir", "cache", "train.py"});
  fs::path results;
  for (const auto& e : fs::recursive_directory_iterator(work_ / "cache"))
    if (e.path().filename() == "results.msgpack") results = e.path();
  ASSERT_FALSE(results.empty()) << first.err;
  fs::remove(results);
  fs::create_directory(results);
  write("train.py", training_script(2));
  const Result r = run({"--cache-dir", "cache", "train.py"});
  EXPECT_NE(r.err.find("a directory is in its place"), std::string::npos) << r.err;
}

// An empty selection (`--select "$RULES"` with the variable unset) is an error, not a run of
// no rules that passes.
TEST_F(Reliability, ASelectionOfNothingIsAnError) {
  write("train.py", training_script(1));
  for (const char* select : {"", ",", " , "}) {
    const Result r = run({"--select", select, "train.py"});
    EXPECT_EQ(r.status, 2) << "--select '" << select << "'";
    EXPECT_NE(r.err.find("--select names no rule"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run({"--select", "GL1", "train.py"}).status, 1);
}

// CUDA C++ is C++, named directly or found in a walk: not Python with a bogus GL000.
TEST_F(Reliability, CudaSourcesAreCpp) {
  const std::string loop =
      slurp(fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/GL101_item_in_loop.cpp");
  write("ext/scale.cu",
        "__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }\n"
        "void launch(float* x) { scale<<<1, 256>>>(x, 2.0f); }\n" +
            loop);
  write("ext/scale.cuh", "__global__ void scale(float* x, float s);\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ext/scale.cu", "ext/scale.cuh"}, {"ext"}}) {
    std::vector<std::string> full = {"--no-cache", "--format", "json"};
    full.insert(full.end(), args.begin(), args.end());
    const nlohmann::json report = parse_json(run(full));
    std::set<std::string> seen = codes(report);
    EXPECT_TRUE(seen.count("GL101")) << report.dump();
    EXPECT_FALSE(seen.count("GL000")) << report.dump();
  }
}

// PEP 263: a Python file that declares its encoding is read in it; its findings are those of
// the same text in UTF-8, at the same lines and columns (without fixes: their byte offsets
// would be the UTF-8 text's, not the file's).
TEST_F(Reliability, DeclaredEncodingsAreDecoded) {
  const std::string body = "# caf\xC3\xA9 au lait\n" + training_script(1);
  write("utf8.py", "# -*- coding: utf-8 -*-\n" + body);
  std::string latin = "# -*- coding: latin-1 -*-\n" + body;
  latin.replace(latin.find("\xC3\xA9"), 2, "\xE9");
  write("latin.py", latin);
  write("unknown.py", "# coding: klingon\nx = 1\n");

  EXPECT_FALSE(places("utf8.py").empty());
  EXPECT_EQ(places("latin.py"), places("utf8.py"));
  const Result unknown = run({"--no-cache", "unknown.py"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("declares the encoding `klingon`"), std::string::npos);
}

// UTF-16 is named as such, not as "binary" or "NUL bytes".
TEST_F(Reliability, Utf16IsNamed) {
  const std::string text = training_script(1);
  std::string le = "\xFF\xFE", bare;
  for (char c : text) {
    le += c;
    le += '\0';
    bare += c;
    bare += '\0';
  }
  write("bom.py", le);
  write("bare.py", bare);
  for (const char* name : {"bom.py", "bare.py"}) {
    const Result r = run({"--no-cache", name});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("UTF-16 text"), std::string::npos) << r.err;
  }
}

// Every input the fuzzers once crashed on (fuzz/regressions/) lints without a crash. The
// sanitizer build (fuzz/README.md) re-runs them too; this holds them in every build.
TEST_F(Reliability, FuzzRegressionsLintWithoutCrashing) {
  const fs::path dir = fs::path(GPULINT_SOURCE_DIR) / "fuzz/regressions";
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    // Inputs without an extension are Python's (the first fuzz target's).
    const std::string ext = entry.path().extension().string();
    write("input" + (ext.empty() ? std::string(".py") : ext), slurp(entry.path()));
    const Result r = run({"--no-cache", "input" + (ext.empty() ? std::string(".py") : ext)});
    EXPECT_LE(r.status, 2) << entry.path();
    ++seen;
  }
  EXPECT_GE(seen, 2u);
}

}  // namespace
}  // namespace gpulint::testing
