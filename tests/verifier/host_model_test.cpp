#include "verifier/harness/host_model.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "verifier/harness/report.h"

namespace gpulint::verifier {
namespace {

constexpr const char* kProbeOutput =
    R"({"torch": "2.11.0+cu130", "figures": {"launch_us": 4.2, "item_us": 21.5,)"
    R"( "synchronize_us": 6.1, "print_us": 1.9, "module_us": 14.0, "alloc_us": 3.3}})";

TEST(HostModel, TheProbesFiguresAreRead) {
  const HostModel m = host_model_from_probe(kProbeOutput, "python3");
  EXPECT_TRUE(m.measured());
  EXPECT_EQ(m.detail, "torch 2.11.0+cu130 through python3");
  EXPECT_DOUBLE_EQ(m.launch_us, 4.2);
  EXPECT_DOUBLE_EQ(m.item_us, 21.5);
  EXPECT_DOUBLE_EQ(m.synchronize_us, 6.1);
  EXPECT_DOUBLE_EQ(m.print_us, 1.9);
  EXPECT_DOUBLE_EQ(m.module_us, 14.0);
  EXPECT_DOUBLE_EQ(m.alloc_us, 3.3);
}

TEST(HostModel, WhatTheProbeCouldNotDoIsItsReason) {
  try {
    host_model_from_probe(R"({"error": "torch 2.11.0 sees no CUDA GPU"})", "python3");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "torch 2.11.0 sees no CUDA GPU");
  }
  EXPECT_THROW(host_model_from_probe("Traceback (most recent call last):", "python3"),
               std::runtime_error);
  EXPECT_THROW(host_model_from_probe(R"({"torch": "2.11", "figures": {"launch_us": 4}})", "p"),
               std::runtime_error);
  EXPECT_THROW(host_model_from_probe(R"({"torch": "2.11", "figures": {"launch_us": -1,)"
                                     R"( "item_us": 1, "synchronize_us": 1, "print_us": 1,)"
                                     R"( "module_us": 1, "alloc_us": 1}})",
                                     "p"),
               std::runtime_error);
}

// A stand-in interpreter: a shell script given `-c SOURCE`, as the probe is run.
std::string stand_in(const std::string& name, const std::string& body) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (name + std::to_string(getpid()))).string();
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(HostModel, TheProbeRunsThroughTheGivenPython) {
  const std::string python =
      stand_in("gpulint-probe-ok", std::string("echo '") + kProbeOutput + "'\necho warning >&2");
  const HostModel m = probe_host_model(python, 10, ProbeWork{});
  EXPECT_TRUE(m.measured()) << m.detail;
  EXPECT_DOUBLE_EQ(m.module_us, 14.0);
  EXPECT_TRUE(m.cpu_gemm_ms.empty());
  std::remove(python.c_str());
}

// The probe is given placement's GEMM shape and batch size as its arguments, and its CPU
// samples are read.
TEST(HostModel, TheProbeTimesTheGivenCpuWork) {
  const std::string figures(kProbeOutput);
  const std::string python =
      stand_in("gpulint-probe-gemm",
               "echo '" + figures.substr(0, figures.size() - 1) +
                   ", \"cpu_gemm_ms\": ['\"$3, $4, $5\"'], \"cpu_randn_ms\": ['\"$6\"']}'");
  const HostModel m = probe_host_model(python, 10, ProbeWork{{8, 16, 32}, 9633792});
  ASSERT_TRUE(m.measured()) << m.detail;
  EXPECT_EQ(m.cpu_gemm_ms, (std::vector<double>{8, 16, 32}));
  EXPECT_EQ(m.cpu_randn_ms, (std::vector<double>{9633792}));
  std::remove(python.c_str());
  EXPECT_THROW(host_model_from_probe(
                   figures.substr(0, figures.size() - 1) + R"(, "cpu_gemm_ms": [21.0, 0]})", "p"),
               std::runtime_error);
}

TEST(HostModel, WithoutTorchTheFiguresAreRawCudaAndSayWhy) {
  const HostModel missing = probe_host_model("/nonexistent/python3", 10, ProbeWork{});
  EXPECT_FALSE(missing.measured());
  EXPECT_EQ(missing.detail, "cannot run /nonexistent/python3");

  const std::string failing = stand_in("gpulint-probe-fail", "exit 1");
  EXPECT_EQ(probe_host_model(failing, 10, ProbeWork{}).detail,
            failing + " failed running the probe");
  std::remove(failing.c_str());

  const std::string slow = stand_in("gpulint-probe-slow", "exec sleep 30");
  const HostModel timed_out = probe_host_model(slow, 0.3, ProbeWork{});
  EXPECT_FALSE(timed_out.measured());
  EXPECT_NE(timed_out.detail.find("did not finish the probe within"), std::string::npos);
  std::remove(slow.c_str());
}

// The probe itself, through this machine's python3: it runs (no syntax error) up to what the
// machine lacks, and says that.
TEST(HostModel, TheProbeRunsOnThisMachinesPython) {
  if (system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here";
  const HostModel m = probe_host_model("python3", 120, ProbeWork{{64, 64, 64}, 4096});
  if (m.measured()) {
    EXPECT_GT(m.launch_us, 0);
    EXPECT_GT(m.item_us, 0);
  } else {
    EXPECT_TRUE(m.detail.starts_with("python cannot import torch") ||
                m.detail.find("sees no CUDA GPU") != std::string::npos)
        << m.detail;
  }
}

// A stand-in torch package with just what the probe calls, so that the whole probe runs here
// (this machine's python3 has no torch): every line of it, the CPU GEMM and the core pinning
// included, is exercised without a GPU.
constexpr const char* kStandInTorch = R"PY(
import contextlib
__version__ = "0.0-stand-in"
class _Tensor:
    def item(self): return 0.0
class _Module:
    def __init__(self, *parts): self.parts = parts
    def cuda(self): return self
    def __call__(self, x):
        for part in self.parts:
            if isinstance(part, _Module): x = part(x)
        return x
class cuda:
    is_available = staticmethod(lambda: True)
    init = staticmethod(lambda: None)
    synchronize = staticmethod(lambda: None)
    _sleep = staticmethod(lambda cycles: None)
class nn:
    Linear = ReLU = Sequential = _Module
zeros = empty = rand = randn = lambda *shape, **options: _Tensor()
mm = lambda a, b: _Tensor()
set_num_threads = lambda n: None
no_grad = contextlib.nullcontext
)PY";

TEST(HostModel, TheWholeProbeRunsAgainstAStandInTorch) {
  if (system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpulint-stand-in-torch" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "torch");
  std::ofstream(dir / "torch" / "__init__.py") << kStandInTorch;
  const char* saved = std::getenv("PYTHONPATH");
  const std::string saved_path = saved != nullptr ? saved : "";
  setenv("PYTHONPATH", dir.c_str(), 1);
  const HostModel m = probe_host_model("python3", 120, ProbeWork{{8, 8, 8}, 64});
  if (saved != nullptr) {
    setenv("PYTHONPATH", saved_path.c_str(), 1);
  } else {
    unsetenv("PYTHONPATH");
  }
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(m.measured()) << m.detail;
  EXPECT_EQ(m.detail, "torch 0.0-stand-in through python3");
  EXPECT_GE(m.launch_us, 0);
  EXPECT_GE(m.module_us, 0);
  EXPECT_EQ(m.cpu_gemm_ms.size(), 15u);
  EXPECT_EQ(m.cpu_randn_ms.size(), 9u);
}

TEST(HostModel, TheReportCarriesIt) {
  Report r;
  r.device.name = "GPU";
  r.device.host = host_model_from_probe(kProbeOutput, "python3");
  const Report back = report_from_json(to_json(r));
  EXPECT_EQ(back.device.host.source, "torch");
  EXPECT_EQ(back.device.host.detail, r.device.host.detail);
  EXPECT_DOUBLE_EQ(back.device.host.item_us, 21.5);
  r.device.host.cpu_gemm_ms = {21.5, 20.9};
  r.device.host.cpu_randn_ms = {80.5};
  const Report with_samples = report_from_json(to_json(r));
  EXPECT_EQ(with_samples.device.host.cpu_gemm_ms, r.device.host.cpu_gemm_ms);
  EXPECT_EQ(with_samples.device.host.cpu_randn_ms, r.device.host.cpu_randn_ms);
  r.device.host = HostModel{};
  r.device.host.detail = "python3 cannot import torch";
  const Report raw = report_from_json(to_json(r));
  EXPECT_FALSE(raw.device.host.measured());
  EXPECT_EQ(raw.device.host.detail, "python3 cannot import torch");
}

}  // namespace
}  // namespace gpulint::verifier
