#include "doctor/torch_probe.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gpulint::system {
namespace {

TEST(TorchProbe, ParsesACudaBuild) {
  const TorchFacts t = parse_torch_probe(
      "some warning printed by an import\n"
      R"({"python": "/opt/venv/bin/python3", "python_version": "3.12.3", "torch": "2.11.0+cu130",)"
      R"( "cuda": "13.0", "cuda_available": true, "arch_list": ["sm_90", "sm_100"],)"
      R"( "devices": [{"name": "NVIDIA H200", "capability": [9, 0]}],)"
      R"( "matmul_allow_tf32": false, "cudnn_allow_tf32": true,)"
      R"( "float32_matmul_precision": "highest", "cudnn_enabled": true,)"
      R"( "cudnn_benchmark": false, "cudnn_version": 91002})"
      "\n");
  ASSERT_TRUE(t.ran) << t.error;
  EXPECT_TRUE(t.torch_installed);
  EXPECT_EQ(t.version, "2.11.0+cu130");
  EXPECT_EQ(t.cuda_version, "13.0");
  EXPECT_TRUE(t.cuda_available);
  EXPECT_EQ(t.arch_list, (std::vector<std::string>{"sm_90", "sm_100"}));
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].capability_major, 9);
  EXPECT_EQ(t.matmul_allow_tf32, false);
  EXPECT_EQ(t.float32_matmul_precision, "highest");
  EXPECT_EQ(t.cudnn_version, 91002);
}

TEST(TorchProbe, ParsesACpuOnlyBuild) {
  const TorchFacts t = parse_torch_probe(
      R"({"python": "p", "python_version": "3.11", "torch": "2.5.1+cpu", "cuda": null,)"
      R"( "cuda_available": false, "arch_list": [], "devices": [], "cudnn_version": null})");
  ASSERT_TRUE(t.ran);
  EXPECT_TRUE(t.torch_installed);
  EXPECT_FALSE(t.cuda_version);
  EXPECT_FALSE(t.cudnn_version);
}

TEST(TorchProbe, ParsesAMissingTorch) {
  const TorchFacts t = parse_torch_probe(
      R"({"python": "/usr/bin/python3", "python_version": "3.11.2", "torch": null,)"
      R"( "import_error": "ModuleNotFoundError: No module named 'torch'"})");
  ASSERT_TRUE(t.ran);
  EXPECT_FALSE(t.torch_installed);
  EXPECT_NE(t.import_error.find("No module named"), std::string::npos);
}

TEST(TorchProbe, NoJsonIsAnError) {
  const TorchFacts t = parse_torch_probe("Traceback (most recent call last):\n");
  EXPECT_FALSE(t.ran);
  EXPECT_FALSE(t.error.empty());
}

TEST(TorchProbe, RunsTheRealInterpreter) {
  // Whatever python3 has here, the probe must come back with a verdict on torch.
  const TorchFacts t = run_torch_probe("python3", std::chrono::seconds(60));
  if (!t.ran && t.error.find("cannot run") != std::string::npos) {
    GTEST_SKIP() << "no python3 on this machine: " << t.error;
  }
  ASSERT_TRUE(t.ran) << t.error;
  EXPECT_FALSE(t.python_version.empty());
  EXPECT_TRUE(t.torch_installed || !t.import_error.empty());
}

TEST(TorchProbe, NamesAnInterpreterThatDoesNotExist) {
  const TorchFacts t = run_torch_probe("/nonexistent/python9", std::chrono::seconds(5));
  EXPECT_FALSE(t.ran);
  EXPECT_NE(t.error.find("cannot run '/nonexistent/python9'"), std::string::npos) << t.error;
}

TEST(TorchProbe, ShowsTheInterpretersErrorWhenItPrintsNoResult) {
  // `false` ignores its arguments and exits 1 without output: no JSON, an exit code to show.
  const TorchFacts t = run_torch_probe("false", std::chrono::seconds(5));
  EXPECT_FALSE(t.ran);
  EXPECT_NE(t.error.find("exited with 1"), std::string::npos) << t.error;
}

}  // namespace
}  // namespace gpulint::system
