#include "watch/trace_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gpulint::system {
namespace {

Trace sample_trace() {
  Trace trace;
  trace.interval_ms = 50;
  trace.command = {"python3", "train.py", "--epochs", "1"};
  trace.exit_code = 130;
  trace.t_ms = {0, 50, 100, 151};
  GpuSeries gpu;
  gpu.index = 0;
  gpu.name = "NVIDIA H200";
  gpu.memory_total_mib = 143771;
  gpu.utilization_percent = {0, 45, std::numeric_limits<double>::quiet_NaN(), 100};
  gpu.memory_used_mib = {512, 1024, 2048, 4096};
  gpu.sm_clock_mhz = {345, 1980, 1980, 1980};
  trace.gpus.push_back(gpu);
  return trace;
}

void expect_same_column(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i])) {
      EXPECT_TRUE(std::isnan(b[i])) << i;
    } else {
      EXPECT_EQ(a[i], b[i]) << i;
    }
  }
}

TEST(TraceJson, RoundTripsExactly) {
  const Trace trace = sample_trace();
  std::string error;
  const std::optional<Trace> back = read_trace_json(write_trace_json(trace), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->interval_ms, 50);
  EXPECT_EQ(back->command, trace.command);
  EXPECT_EQ(back->exit_code, 130);
  expect_same_column(back->t_ms, trace.t_ms);
  ASSERT_EQ(back->gpus.size(), 1u);
  EXPECT_EQ(back->gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(back->gpus[0].memory_total_mib, 143771);
  expect_same_column(back->gpus[0].utilization_percent, trace.gpus[0].utilization_percent);
  expect_same_column(back->gpus[0].memory_used_mib, trace.gpus[0].memory_used_mib);
  expect_same_column(back->gpus[0].sm_clock_mhz, trace.gpus[0].sm_clock_mhz);
  // Written again, it is the same bytes.
  EXPECT_EQ(write_trace_json(*back), write_trace_json(trace));
}

TEST(TraceJson, MissingReadingsAreNull) {
  EXPECT_NE(write_trace_json(sample_trace()).find("[0,45,null,100]"), std::string::npos);
}

TEST(TraceJson, ValuesAreWholeNumbers) {
  Trace trace = sample_trace();
  trace.t_ms[1] = 50.4;
  trace.gpus[0].memory_used_mib[0] = 511.6;
  const std::string json = write_trace_json(trace);
  EXPECT_NE(json.find("\"t_ms\":[0,50,100,151]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"memory_used_mib\":[512,"), std::string::npos) << json;
}

TEST(TraceJson, NoExitCodeIsNull) {
  Trace trace = sample_trace();
  trace.exit_code.reset();
  std::string error;
  const auto back = read_trace_json(write_trace_json(trace), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_FALSE(back->exit_code);
}

TEST(TraceJson, RejectsOtherDocuments) {
  std::string error;
  EXPECT_FALSE(read_trace_json("not json", &error));
  EXPECT_FALSE(read_trace_json(R"({"format":"something-else","version":1})", &error));
  EXPECT_NE(error.find("format"), std::string::npos);
  EXPECT_FALSE(read_trace_json(R"({"format":"gpulint-watch-trace","version":1})", &error));
}

TEST(TraceJson, RejectsColumnsOfTheWrongLength) {
  std::string json = write_trace_json(sample_trace());
  const std::string column = "\"sm_clock_mhz\":[345,1980,1980,1980]";
  json.replace(json.find(column), column.size(), "\"sm_clock_mhz\":[345]");
  std::string error;
  EXPECT_FALSE(read_trace_json(json, &error));
  EXPECT_NE(error.find("sm_clock_mhz"), std::string::npos);
}

}  // namespace
}  // namespace gpulint::system
