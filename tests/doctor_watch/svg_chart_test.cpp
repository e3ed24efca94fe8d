// The chart is a real chart: well-formed SVG with a time axis and its ticks, a utilisation and
// a memory series per GPU, a legend, and the diagnosis.

#include "watch/svg_chart.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <vector>

#include "tests/svg_check.h"

namespace gpulint::system {
namespace {

using svg_check::balanced;
using svg_check::count;

Trace two_gpu_trace() {
  Trace trace;
  trace.interval_ms = 50;
  trace.command = {"python", "train.py", "--tag", "<a&b>"};
  trace.exit_code = 0;
  for (int i = 0; i <= 200; ++i) trace.t_ms.push_back(50.0 * i);  // 10 s
  for (unsigned g = 0; g < 2; ++g) {
    GpuSeries gpu;
    gpu.index = g;
    gpu.name = "NVIDIA H200";
    gpu.memory_total_mib = 143771;
    for (int i = 0; i <= 200; ++i) {
      gpu.utilization_percent.push_back(i % 40 < 20 ? 100 : 0);
      gpu.memory_used_mib.push_back(1000.0 + 50.0 * i);
      gpu.sm_clock_mhz.push_back(1980);
    }
    trace.gpus.push_back(gpu);
  }
  return trace;
}

TEST(SvgChart, IsWellFormedStandaloneSvg) {
  const Trace trace = two_gpu_trace();
  const std::string svg = svg_chart(trace, diagnose(trace));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_TRUE(balanced(svg)) << svg;
}

TEST(SvgChart, NoElementRepeatsAnAttribute) {
  const Trace trace = two_gpu_trace();
  const std::string svg = svg_chart(trace, diagnose(trace));
  const std::regex tag(R"(<[a-zA-Z]+([^>]*)>)");
  const std::regex attribute(R"(([a-zA-Z-]+)=")");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string attributes = (*it)[1];
    std::set<std::string> names;
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), attribute);
         a != std::sregex_iterator(); ++a) {
      EXPECT_TRUE(names.insert((*a)[1]).second) << "repeated " << (*a)[1] << " in " << (*it)[0];
    }
  }
}

TEST(SvgChart, MemoryAxisEndsOnALabelledTick) {
  const Trace trace = two_gpu_trace();  // 140.4 GiB cards: ticks every 50 GiB up to 150
  const std::string svg = svg_chart(trace, diagnose(trace));
  EXPECT_NE(svg.find(">150 GiB</text>"), std::string::npos);
}

TEST(SvgChart, HasTimeTicksAndAxisTitles) {
  const Trace trace = two_gpu_trace();
  const std::string svg = svg_chart(trace, diagnose(trace));
  // 10 s with about ten ticks: every second, 0 to 10.
  for (int s = 0; s <= 10; ++s) {
    EXPECT_NE(svg.find(">" + std::to_string(s) + "</text>"), std::string::npos) << s;
  }
  EXPECT_NE(svg.find("time (s)"), std::string::npos);
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
  EXPECT_NE(svg.find(" GiB</text>"), std::string::npos);
}

TEST(SvgChart, DrawsUtilisationAndMemoryForEveryGpuWithALegend) {
  const Trace trace = two_gpu_trace();
  const std::string svg = svg_chart(trace, diagnose(trace));
  EXPECT_EQ(count(svg, "class=\"utilization\""), 2u);
  EXPECT_EQ(count(svg, "class=\"memory\""), 2u);
  EXPECT_NE(svg.find("GPU 0 NVIDIA H200 utilisation (%)"), std::string::npos);
  EXPECT_NE(svg.find("GPU 1 NVIDIA H200 memory in use (GiB)"), std::string::npos);
  EXPECT_NE(svg.find("GPU 0: saw-tooth: "), std::string::npos);
}

TEST(SvgChart, EscapesTheCommandLine) {
  const Trace trace = two_gpu_trace();
  const std::string svg = svg_chart(trace, diagnose(trace));
  EXPECT_NE(svg.find("--tag &lt;a&amp;b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<a&b>"), std::string::npos);
}

TEST(SvgChart, MissingReadingsBreakTheLine) {
  Trace trace = two_gpu_trace();
  trace.gpus.resize(1);
  trace.gpus[0].utilization_percent[100] = std::numeric_limits<double>::quiet_NaN();
  const std::string svg = svg_chart(trace, diagnose(trace));
  EXPECT_EQ(count(svg, "class=\"utilization\""), 2u);
}

TEST(SvgChart, EmptyTraceStillDrawsAxes) {
  Trace trace;
  const std::string svg = svg_chart(trace, {});
  EXPECT_TRUE(balanced(svg));
  EXPECT_NE(svg.find("time (s)"), std::string::npos);
}

TEST(SvgChart, TickStepsAreRound) {
  EXPECT_DOUBLE_EQ(nice_tick_step(10, 10), 1);
  EXPECT_DOUBLE_EQ(nice_tick_step(14.2, 10), 2);
  EXPECT_DOUBLE_EQ(nice_tick_step(45, 10), 5);
  EXPECT_DOUBLE_EQ(nice_tick_step(0.8, 10), 0.1);
  EXPECT_DOUBLE_EQ(nice_tick_step(140, 4), 50);
  EXPECT_DOUBLE_EQ(nice_tick_step(0, 10), 1);
}

}  // namespace
}  // namespace gpulint::system
