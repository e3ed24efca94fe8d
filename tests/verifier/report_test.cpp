#include "verifier/harness/report.h"

#include <gtest/gtest.h>

#include "tests/verifier/sample_report.h"

namespace gpulint::verifier {
namespace {

TEST(VerifierReport, JsonRoundTrip) {
  const Report r = testing::sample_report();
  const Report back = report_from_json(to_json(r));
  EXPECT_EQ(back.device.name, r.device.name);
  EXPECT_EQ(back.device.cc_major, 9);
  EXPECT_EQ(back.device.clocks_start.sm_mhz, 1980);
  ASSERT_EQ(back.experiments.size(), 3u);
  const ExperimentResult* sync = back.find("sync");
  ASSERT_NE(sync, nullptr);
  const Measurement* m = sync->find("balanced.readback");
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(m->stats.median, 100);
  EXPECT_DOUBLE_EQ(m->stats.p75, 101);
  EXPECT_EQ(m->stats.samples, 9u);
  EXPECT_TRUE(back.find("precision")->find("gemm.bf16")->higher_is_better);
  EXPECT_FALSE(back.find("transfer")->ok);
  EXPECT_EQ(back.find("transfer")->error, "cudaErrorMemoryAllocation: out of memory");
  EXPECT_DOUBLE_EQ(sync->host_load.other_cores, 2.5);
  EXPECT_DOUBLE_EQ(sync->host_load.steal_cores, 0.25);
  EXPECT_DOUBLE_EQ(back.find("precision")->host_load.other_cores, -1);  // not read
}

TEST(VerifierReport, UnavailableCarriesItsReason) {
  Report r;
  r.unavailable = Unavailable{"no-gpu", "no CUDA GPU is visible"};
  const Report back = report_from_json(to_json(r));
  ASSERT_TRUE(back.unavailable);
  EXPECT_EQ(back.unavailable->reason, "no-gpu");
  EXPECT_TRUE(back.experiments.empty());
}

TEST(VerifierReport, ForeignDocumentsAreRejected) {
  EXPECT_THROW(report_from_json("not json"), ReportError);
  EXPECT_THROW(report_from_json(R"({"schema": "other/9"})"), ReportError);
  EXPECT_THROW(report_from_json(R"({"schema": "gpulint-verifier/1"})"), ReportError);
}

TEST(VerifierReport, DeviceLineNamesChipDriverAndRuntime) {
  const std::string line = describe_device(testing::sample_report().device);
  EXPECT_NE(line.find("NVIDIA Test GPU (sm_90, 132 SMs"), std::string::npos);
  EXPECT_NE(line.find("driver 580.159.04 (CUDA 13.0)"), std::string::npos);
  EXPECT_NE(line.find("runtime 13.0"), std::string::npos);
}

}  // namespace
}  // namespace gpulint::verifier
