// Issue 22: ways gpulint could lose findings, hang or overwrite what it should not, each made
// here as a user meets it (a compile database beside other files, a FIFO, a device node, a
// symlink, an unreadable directory) and run through the real binary.

#include <sys/stat.h>

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

}  // namespace
}  // namespace gpulint::testing
