// The command line a Ruff user already knows (issue 23): `gpulint` alone lints `.`, `-` reads
// standard input under --stdin-filename, concise output, --statistics, --exit-zero, --quiet,
// --show-files, "did you mean" for mistyped flags, codes, config keys and commands, and codes
// read in any case everywhere.

#include <filesystem>
#include <string>

#include "tests/cli_harness.h"

namespace gpulint::testing {
namespace {

class CliHabits : public GpulintRun {};

TEST_F(CliHabits, NoArgumentsLintTheCurrentDirectory) {
  write("src/train.py", kTraining);
  const Result bare = run({});
  EXPECT_EQ(bare.status, 1) << bare.err;
  EXPECT_NE(bare.out.find("src/train.py:12:13: GL101"), std::string::npos) << bare.out;
  const Result check = run({"check"});
  EXPECT_EQ(check.out, bare.out);
  EXPECT_EQ(run({"."}).out, bare.out);
}

TEST_F(CliHabits, StandardInputIsLintedUnderItsName) {
  write("buffer.txt", kTraining);
  const Result named = run({"--output-format", "concise", "-", "--stdin-filename", "src/train.py"},
                           "", "buffer.txt");
  EXPECT_EQ(named.status, 1) << named.err;
  EXPECT_NE(named.out.find("src/train.py:12:13: GL101 "), std::string::npos) << named.out;
  // Unnamed, it is `-`; the name alone also reads it; nothing is cached for it.
  const Result unnamed = run({"--output-format", "concise", "-"}, "", "buffer.txt");
  EXPECT_NE(unnamed.out.find("-:12:13: GL101 "), std::string::npos) << unnamed.out;
  const Result name_only =
      run({"--output-format", "concise", "--stdin-filename", "src/train.py"}, "", "buffer.txt");
  EXPECT_EQ(name_only.out, named.out);
  EXPECT_FALSE(std::filesystem::exists(work_ / ".gpulint_cache"));
  // The name decides the config that applies: per-file-ignores for src/ leave GL101 out.
  write("pyproject.toml", "[tool.gpulint.per-file-ignores]\n\"src/*\" = [\"GL101\"]\n");
  const Result ignored = run(
      {"--output-format", "concise", "-", "--stdin-filename", "src/train.py"}, "", "buffer.txt");
  EXPECT_EQ(ignored.out.find("GL101"), std::string::npos) << ignored.out;
}

TEST_F(CliHabits, ConciseStatisticsQuietAndExitZero) {
  write("train.py", kTraining);
  const Result concise = run({"--output-format", "concise", "--select", "GL101", "train.py"});
  EXPECT_EQ(concise.status, 1);
  EXPECT_EQ(concise.out,
            "train.py:12:13: GL101 `.item()` in the training loop waits for the GPU every step\n"
            "Found 1 finding in 1 file.\n");
  const Result quiet = run({"-q", "--output-format", "concise", "--select", "GL101", "train.py"});
  EXPECT_EQ(quiet.out,
            "train.py:12:13: GL101 `.item()` in the training loop waits for the GPU every step\n");
  const Result zero = run({"--exit-zero", "train.py"});
  EXPECT_EQ(zero.status, 0);
  EXPECT_NE(zero.out.find("GL101"), std::string::npos);
  EXPECT_EQ(run({"--exit-zero", "missing.py"}).status, 2);  // errors still fail

  const Result stats = run({"--statistics", "--select", "GL101,GL303", "train.py"});
  EXPECT_EQ(stats.status, 1);
  EXPECT_EQ(stats.out, "1  GL101  item-in-loop\n") << stats.out;
  const Result json_stats = run({"--statistics", "--output-format", "json", "train.py"});
  EXPECT_EQ(json_stats.status, 2);
  EXPECT_NE(json_stats.err.find("--statistics"), std::string::npos) << json_stats.err;
  // --format stays as an alias.
  EXPECT_EQ(run({"--format", "concise", "--select", "GL101", "train.py"}).out, concise.out);
}

TEST_F(CliHabits, ShowFilesListsWhatWouldBeLinted) {
  write("train.py", kTraining);
  write("pkg/model.py", "x = 1\n");
  write("notes.txt", "not Python\n");
  const Result r = run({"--show-files"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "pkg/model.py\ntrain.py\n");
}

TEST_F(CliHabits, DidYouMean) {
  write("train.py", kTraining);
  const Result flag = run({"--selct", "GL101", "train.py"});
  EXPECT_EQ(flag.status, 2);
  EXPECT_NE(flag.err.find("did you mean `--select`?"), std::string::npos) << flag.err;
  const Result code = run({"--select", "GL1O1", "train.py"});
  EXPECT_EQ(code.status, 2);
  EXPECT_NE(code.err.find("did you mean `GL101`?"), std::string::npos) << code.err;
  const Result command = run({"chek", "train.py"});
  EXPECT_EQ(command.status, 2);
  EXPECT_NE(command.err.find("no gpulint command"), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("did you mean `check`?"), std::string::npos) << command.err;
  // A word that is no command and no file says so (`gpulint server` read as a path before).
  const Result word = run({"serve"});
  EXPECT_EQ(word.status, 2);
  EXPECT_NE(word.err.find("`serve` is no file and no gpulint command"), std::string::npos)
      << word.err;
  write(".gpulint.toml", "selct = [\"GL101\"]\n");
  const Result key = run({"train.py"});
  EXPECT_EQ(key.status, 2);
  EXPECT_NE(key.err.find("did you mean `select`?"), std::string::npos) << key.err;
}

// -p names the compile database's directory: one that is missing or holds none is an error,
// not a silent run on syntax alone.
TEST_F(CliHabits, AMissingCompileDatabaseIsAnError) {
  write("train.cpp", "int main() { return 0; }\n");
  const Result missing = run({"-p", "no-such-dir", "train.cpp"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("-p no-such-dir: no such directory"), std::string::npos)
      << missing.err;
  write("build/README", "no database here\n");
  const Result empty = run({"-p", "build", "train.cpp"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("holds no compile_commands.json"), std::string::npos) << empty.err;
}

TEST_F(CliHabits, CodesAreReadInAnyCase) {
  write("train.py", kTraining);
  const Result upper = run({"--output-format", "concise", "--select", "GL101", "train.py"});
  EXPECT_EQ(run({"--output-format", "concise", "--select", "gl101", "train.py"}).out, upper.out);
  EXPECT_EQ(run({"explain", "gl101"}).status, 0);
  write("suppressed.py",
        std::string(kTraining).replace(std::string(kTraining).find("loss.item()"), 11,
                                       "loss.item()  # gpulint: ignore[gl101]"));
  const Result suppressed = run({"--select", "GL101,GL001,GL002", "suppressed.py"});
  EXPECT_EQ(suppressed.status, 0) << suppressed.out;
  write(".gpulint.toml", "select = [\"gl101\"]\n");
  EXPECT_EQ(run({"--output-format", "concise", "train.py"}).out, upper.out);
}

}  // namespace
}  // namespace gpulint::testing
