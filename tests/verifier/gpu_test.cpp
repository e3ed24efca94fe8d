// gpulint-verifier end to end on the machine's GPU; skipped with the verifier's own reason
// where there is none (CI), and absent where nvcc was not found at build time.

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "verifier/harness/report.h"

namespace gpulint::verifier {
namespace {

#ifdef GPULINT_VERIFIER_BINARY

namespace fs = std::filesystem;

struct VerifierRun {
  int status = -1;
  Report report;
};

VerifierRun run_verifier(const std::string& flags) {
  const fs::path out =
      fs::temp_directory_path() / ("gpulint-verifier-test-" + std::to_string(::getpid()) + ".json");
  const std::string command = std::string(GPULINT_VERIFIER_BINARY) + " --output " + out.string() +
                              " " + flags + " 2>/dev/null";
  const int raw = std::system(command.c_str());
  VerifierRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(out);
  if (!text.str().empty()) r.report = report_from_json(text.str());
  return r;
}

#define SKIP_WITHOUT_GPU(run)                                                      \
  if ((run).status == 3) {                                                         \
    GTEST_SKIP() << "no usable GPU: "                                              \
                 << ((run).report.unavailable ? (run).report.unavailable->message  \
                                              : std::string("(no reason given)")); \
  }

TEST(VerifierGpu, SyncExperimentMeasuresEveryVariant) {
  const VerifierRun r = run_verifier("--experiments sync --steps 20 --budget-s 0.05");
  SKIP_WITHOUT_GPU(r);
  ASSERT_EQ(r.status, 0);
  const ExperimentResult* sync = r.report.find("sync");
  ASSERT_NE(sync, nullptr);
  ASSERT_TRUE(sync->ok) << sync->error;
  for (const char* id :
       {"launch.pipelined", "balanced.readback", "compute.device_sync", "balanced.print"}) {
    const Measurement* m = sync->find(id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_GT(m->stats.median, 0) << id;
  }
  // A readback every step can only add time to a pipelined step.
  EXPECT_GT(sync->find("balanced.readback")->stats.median,
            sync->find("balanced.pipelined")->stats.median);
  EXPECT_FALSE(r.report.device.name.empty());
  EXPECT_GE(r.report.device.cc_major * 10 + r.report.device.cc_minor, 75);
}

TEST(VerifierGpu, CudaErrorInOneExperimentLeavesTheOthersRunning) {
  const VerifierRun r = run_verifier(
      "--experiments sync,debug --inject-error sync --steps 20 "
      "--budget-s 0.05");
  SKIP_WITHOUT_GPU(r);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(r.report.experiments.size(), 2u);
  EXPECT_FALSE(r.report.find("sync")->ok);
  EXPECT_NE(r.report.find("sync")->error.find("cudaErrorMemoryAllocation"), std::string::npos)
      << r.report.find("sync")->error;
  EXPECT_TRUE(r.report.find("debug")->ok) << r.report.find("debug")->error;
  EXPECT_NE(r.report.find("debug")->find("balanced.sync_each"), nullptr);
}

TEST(VerifierGpu, BadArgumentsExitTwo) {
  EXPECT_EQ(run_verifier("--experiments nonsense").status, 2);
}

#else

TEST(VerifierGpu, NotBuilt) {
  GTEST_SKIP() << "gpulint-verifier was not built (no nvcc at configure time)";
}

#endif

}  // namespace
}  // namespace gpulint::verifier
