// The doctor's verdicts on made-up machines: what NVML, the CUDA driver and the Python probe
// would report is plain data, so every branch runs without a GPU.

#include "doctor/doctor.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "doctor/arch_coverage.h"

namespace gpulint::system {
namespace {

// An H200 machine with a matching torch, as seen on the device machine.
DoctorInputs healthy_h200() {
  DoctorInputs in;
  in.driver.loaded = true;
  in.driver.driver_version = "580.159.04";
  in.driver.cuda_driver_version = 13000;
  GpuFacts gpu;
  gpu.index = 0;
  gpu.name = "NVIDIA H200";
  gpu.capability_major = 9;
  gpu.capability_minor = 0;
  gpu.memory_total_bytes = 150754820096ull;
  gpu.memory_used_bytes = 600ull << 20;
  gpu.persistence_mode = true;
  gpu.sm_clock_mhz = 345;
  gpu.sm_clock_max_mhz = 1980;
  in.driver.gpus.push_back(gpu);
  in.cuda.loaded = true;
  in.cuda.version = 13000;
  in.cuda.visible_devices = 1;
  TorchFacts& t = in.torch;
  t.ran = true;
  t.python_executable = "/usr/bin/python3";
  t.python_version = "3.12.3";
  t.torch_installed = true;
  t.version = "2.11.0+cu130";
  t.cuda_version = "13.0";
  t.cuda_available = true;
  t.arch_list = {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
  t.devices = {{"NVIDIA H200", 9, 0}};
  t.matmul_allow_tf32 = true;
  t.cudnn_allow_tf32 = true;
  t.float32_matmul_precision = "high";
  t.cudnn_enabled = true;
  t.cudnn_benchmark = false;
  t.cudnn_version = 91002;
  return in;
}

const Check* find(const DoctorReport& report, const std::string& id) {
  for (const Check& c : report.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

CheckStatus status_of(const DoctorReport& report, const std::string& id) {
  const Check* c = find(report, id);
  EXPECT_NE(c, nullptr) << "no check " << id;
  return c ? c->status : CheckStatus::Fail;
}

TEST(Doctor, HealthyMachinePassesEverything) {
  const DoctorReport report = run_doctor_checks(healthy_h200());
  for (const Check& c : report.checks) {
    EXPECT_EQ(c.status, CheckStatus::Pass) << c.id << ": " << c.message;
    EXPECT_TRUE(c.fix.empty()) << c.id;
  }
  EXPECT_EQ(report.exit_code(), 0);
  const std::string text = render_doctor_text(report);
  EXPECT_NE(text.find("NVIDIA driver 580.159.04, supports CUDA 13.0"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU 0: NVIDIA H200, compute capability 9.0, 140.4 GiB"), std::string::npos)
      << text;
  EXPECT_NE(text.find("SM clock 345 of 1980 MHz"), std::string::npos);
  EXPECT_NE(text.find("cuDNN 9.10.2 enabled"), std::string::npos) << text;
}

TEST(Doctor, NoDriverSaysSoAndExitsThree) {
  DoctorInputs in = healthy_h200();
  in.driver = DriverFacts{};
  in.driver.error = "libnvidia-ml.so.1 could not be loaded (not found)";
  in.cuda = CudaDriverFacts{};
  in.cuda.error = "libcuda.so.1 could not be loaded (not found)";
  in.torch.cuda_available = false;
  in.torch.devices.clear();
  const DoctorReport report = run_doctor_checks(in);
  EXPECT_TRUE(report.no_gpu);
  EXPECT_EQ(report.exit_code(), 3);
  EXPECT_EQ(status_of(report, "nvidia-driver"), CheckStatus::Fail);
  EXPECT_NE(find(report, "nvidia-driver")->message.find("no NVIDIA driver"), std::string::npos);
  EXPECT_NE(render_doctor_text(report).find("no usable NVIDIA GPU on this machine"),
            std::string::npos);
  // The Python side is still checked: it is what the user will fix next.
  EXPECT_EQ(status_of(report, "torch-cuda-available"), CheckStatus::Fail);
}

TEST(Doctor, DriverWithoutGpusExitsThree) {
  DoctorInputs in = healthy_h200();
  in.driver.gpus.clear();
  const DoctorReport report = run_doctor_checks(in);
  EXPECT_EQ(status_of(report, "gpus"), CheckStatus::Fail);
  EXPECT_EQ(report.exit_code(), 3);
}

TEST(Doctor, CpuOnlyTorchFailsWithTheWheelIndex) {
  DoctorInputs in = healthy_h200();
  in.torch.version = "2.5.1+cpu";
  in.torch.cuda_version.reset();
  in.torch.cuda_available = false;
  in.torch.arch_list.clear();
  in.torch.devices.clear();
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "torch-cuda-build");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->message.find("CPU-only"), std::string::npos);
  EXPECT_NE(c->fix.find("download.pytorch.org/whl/cu"), std::string::npos);
  EXPECT_NE(c->fix.find("CUDA 13.0"), std::string::npos);
  EXPECT_NE(c->fix.find("GL304"), std::string::npos);
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(Doctor, TorchCudaNewerThanTheDriverFails) {
  DoctorInputs in = healthy_h200();
  in.cuda.version = 12040;
  in.driver.cuda_driver_version = 12040;
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "torch-cuda-vs-driver");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->message.find("torch's CUDA 13.0 against the driver's CUDA 12.4"), std::string::npos)
      << c->message;
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(Doctor, OlderTorchCudaThanTheDriverPasses) {
  DoctorInputs in = healthy_h200();
  in.torch.cuda_version = "12.8";
  EXPECT_EQ(status_of(run_doctor_checks(in), "torch-cuda-vs-driver"), CheckStatus::Pass);
}

TEST(Doctor, ArchListMissingTheGpuFails) {
  DoctorInputs in = healthy_h200();
  in.torch.arch_list = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"};
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "torch-arch-gpu0");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->message.find("no kernel image is available"), std::string::npos);
  EXPECT_NE(c->fix.find("TORCH_CUDA_ARCH_LIST=9.0"), std::string::npos);
}

TEST(Doctor, PtxOnlyCoverageWarns) {
  DoctorInputs in = healthy_h200();
  in.torch.arch_list = {"sm_80", "sm_86", "compute_86"};
  const DoctorReport report = run_doctor_checks(in);
  EXPECT_EQ(status_of(report, "torch-arch-gpu0"), CheckStatus::Warn);
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(Doctor, CudaVisibleDevicesHidingAllGpusFails) {
  DoctorInputs in = healthy_h200();
  in.cuda_visible_devices = "";
  in.cuda.visible_devices.reset();
  in.cuda.init_error = "CUDA_ERROR_NO_DEVICE";
  in.torch.cuda_available = false;
  in.torch.devices.clear();
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "cuda-visible-devices");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->message.find("CUDA_VISIBLE_DEVICES='' hides all 1 GPU"), std::string::npos)
      << c->message;
  EXPECT_FALSE(report.no_gpu);
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(Doctor, CudaVisibleDevicesShowingSomeGpusPasses) {
  DoctorInputs in = healthy_h200();
  in.cuda_visible_devices = "0";
  const Check* c = find(run_doctor_checks(in), "cuda-visible-devices");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Pass);
}

TEST(Doctor, MissingTorchFails) {
  DoctorInputs in = healthy_h200();
  in.torch = TorchFacts{};
  in.torch.ran = true;
  in.torch.python_executable = "/usr/bin/python3";
  in.torch.import_error = "ModuleNotFoundError: No module named 'torch'";
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "torch");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->message.find("No module named 'torch'"), std::string::npos);
  EXPECT_EQ(find(report, "torch-cuda-build"), nullptr);
}

TEST(Doctor, PythonThatCannotRunFails) {
  DoctorInputs in = healthy_h200();
  in.torch = TorchFacts{};
  in.torch.error = "cannot run 'python9': No such file or directory";
  const Check* c = find(run_doctor_checks(in), "python");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Fail);
  EXPECT_NE(c->fix.find("--python"), std::string::npos);
}

TEST(Doctor, DefaultFp32MatmulWarnsOnTensorCoreGpus) {
  DoctorInputs in = healthy_h200();
  in.torch.matmul_allow_tf32 = false;
  in.torch.float32_matmul_precision = "highest";
  const DoctorReport report = run_doctor_checks(in);
  const Check* c = find(report, "tf32-matmul");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::Warn);
  EXPECT_NE(c->fix.find("GL404"), std::string::npos);
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(Doctor, PersistenceModeOffWarns) {
  DoctorInputs in = healthy_h200();
  in.driver.gpus[0].persistence_mode = false;
  EXPECT_EQ(status_of(run_doctor_checks(in), "persistence-mode"), CheckStatus::Warn);
}

TEST(Doctor, MemoryHeldByAnotherProcessWarns) {
  DoctorInputs in = healthy_h200();
  in.driver.gpus[0].memory_used_bytes = in.driver.gpus[0].memory_total_bytes / 2;
  EXPECT_EQ(status_of(run_doctor_checks(in), "gpu0"), CheckStatus::Warn);
}

TEST(Doctor, JsonReportCarriesChecksFactsAndSummary) {
  DoctorInputs in = healthy_h200();
  in.torch.matmul_allow_tf32 = false;
  in.torch.float32_matmul_precision = "highest";
  const DoctorReport report = run_doctor_checks(in);
  const auto doc = nlohmann::json::parse(render_doctor_json(report, in, "0.1.0"));
  EXPECT_EQ(doc["tool"], "gpulint");
  EXPECT_EQ(doc["driver"]["version"], "580.159.04");
  EXPECT_EQ(doc["gpus"][0]["compute_capability"], "9.0");
  EXPECT_EQ(doc["torch"]["cuda"], "13.0");
  EXPECT_EQ(doc["summary"]["warn"], 1);
  EXPECT_EQ(doc["summary"]["exit_code"], 0);
  bool saw_fix = false;
  for (const auto& c : doc["checks"]) {
    if (c["status"] == "warn") saw_fix = c.contains("fix");
  }
  EXPECT_TRUE(saw_fix);
}

TEST(ArchCoverage, FollowsCudaBinaryCompatibility) {
  const std::vector<std::string> list = {"sm_80", "sm_90a", "compute_90"};
  EXPECT_EQ(arch_coverage(list, 8, 0), ArchCoverage::Native);
  EXPECT_EQ(arch_coverage(list, 8, 6), ArchCoverage::Native);  // sm_80 runs on 8.6
  EXPECT_EQ(arch_coverage(list, 9, 0), ArchCoverage::Native);
  EXPECT_EQ(arch_coverage(list, 10, 0), ArchCoverage::PtxOnly);  // compute_90 JIT
  EXPECT_EQ(arch_coverage(list, 7, 5), ArchCoverage::None);
  EXPECT_EQ(arch_coverage({"sm_90a"}, 9, 0), ArchCoverage::Native);
  EXPECT_EQ(arch_coverage({"sm_86"}, 8, 0), ArchCoverage::None);  // no running down a minor
  EXPECT_EQ(arch_coverage({"sm_100", "sm_120"}, 12, 0), ArchCoverage::Native);
  EXPECT_EQ(arch_coverage({"sm_100f"}, 10, 3), ArchCoverage::Native);
  EXPECT_EQ(arch_coverage({"sm_100a"}, 10, 3), ArchCoverage::None);
  EXPECT_EQ(arch_coverage({"garbage", "sm_"}, 9, 0), ArchCoverage::None);
}

}  // namespace
}  // namespace gpulint::system
