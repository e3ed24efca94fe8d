// The classifier on the traces recorded on an H200 (fixtures/traces/) and on synthetic series
// at the edges of its thresholds.

#include "watch/classifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "rules/registry.h"
#include "watch/trace_json.h"

namespace gpulint::system {
namespace {

namespace fs = std::filesystem;

// A series sampled every 50 ms, as `watch` does by default, from the end of the first second
// (whose readings the classifier leaves out as possibly stale).
std::vector<double> times(size_t n) {
  std::vector<double> t;
  for (size_t i = 0; i < n; ++i) t.push_back(1000.0 + 50.0 * static_cast<double>(i));
  return t;
}

Diagnosis classify_series(const std::vector<double>& u) { return classify(times(u.size()), u); }

std::vector<double> repeat(double value, size_t n) { return std::vector<double>(n, value); }

std::vector<double> concat(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(Classifier, NoSamplesIsUnknown) {
  const Diagnosis d = classify({}, {});
  EXPECT_EQ(d.shape, Shape::Unknown);
  EXPECT_TRUE(d.rules.empty());
}

TEST(Classifier, SingleSampleIsTooShortToJudge) {
  const Diagnosis d = classify_series({97});
  EXPECT_EQ(d.shape, Shape::Unknown);
  EXPECT_NE(d.summary.find("only 1 sample "), std::string::npos) << d.summary;
}

TEST(Classifier, VeryShortRunIsTooShortToJudge) {
  EXPECT_EQ(classify_series(repeat(100, 9)).shape, Shape::Unknown);
  EXPECT_EQ(classify_series(repeat(100, 10)).shape, Shape::Healthy);
}

TEST(Classifier, UnreadSamplesDoNotCount) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(classify_series(repeat(nan, 50)).shape, Shape::Unknown);
  std::vector<double> u = repeat(95, 40);
  u[3] = u[17] = nan;
  EXPECT_EQ(classify_series(u).shape, Shape::Healthy);
}

TEST(Classifier, AllZeroIsIdle) {
  const Diagnosis d = classify_series(repeat(0, 200));
  EXPECT_EQ(d.shape, Shape::Idle);
  EXPECT_DOUBLE_EQ(d.share, 1.0);
  EXPECT_EQ(d.rules, (std::vector<std::string>{"GL302", "GL304"}));
}

TEST(Classifier, ContextCreationNoiseIsStillIdle) {
  EXPECT_EQ(classify_series(concat({repeat(0, 50), repeat(3, 4), repeat(0, 100)})).shape,
            Shape::Idle);
}

TEST(Classifier, ReadingsOfTheFirstSecondAreLeftOut) {
  // What the H200 showed at the start of a CPU-only run that followed a GPU job.
  std::vector<double> t, u;
  for (int i = 0; i < 200; ++i) {
    t.push_back(50.0 * i);
    u.push_back(i >= 3 && i < 7 ? 32 : 0);
  }
  EXPECT_EQ(classify(t, u).shape, Shape::Idle);
  EXPECT_EQ(classify({0, 50, 100, 950}, {90, 90, 90, 90}).shape, Shape::Unknown);
}

TEST(Classifier, TinyKernelsAreNotIdle) {
  // A tiny model with a sync every step read 7 to 11% on the H200.
  const Diagnosis d = classify_series(concat({repeat(0, 40), repeat(8, 160), repeat(0, 10)}));
  EXPECT_EQ(d.shape, Shape::FlatLow);
}

TEST(Classifier, WarmUpBlipsBeforeTheFirstPeakAreStartUp) {
  // Weight copies and library set-up touch the GPU seconds before the first training step.
  const Diagnosis d = classify_series(
      concat({repeat(0, 40), repeat(13, 4), repeat(7, 4), repeat(0, 60), repeat(100, 200)}));
  EXPECT_EQ(d.shape, Shape::Healthy);
  EXPECT_DOUBLE_EQ(d.share, 1.0);
}

TEST(Classifier, HighAndSteadyIsHealthyAndStartUpIsNotJudged) {
  // Three seconds of imports and CUDA init at zero, then a busy loop, then a short teardown.
  const Diagnosis d =
      classify_series(concat({repeat(0, 60), repeat(98, 200), repeat(70, 10), repeat(0, 5)}));
  EXPECT_EQ(d.shape, Shape::Healthy);
  EXPECT_GT(d.share, 0.9);
}

TEST(Classifier, PeriodicDropsAreSawTooth) {
  std::vector<double> u;
  for (int cycle = 0; cycle < 8; ++cycle) {
    u = concat({u, repeat(100, 14), repeat(0, 14)});
  }
  const Diagnosis d = classify_series(concat({repeat(0, 40), u}));
  EXPECT_EQ(d.shape, Shape::SawTooth);
  EXPECT_GE(d.drops, 7);
  EXPECT_NEAR(d.drop_period_s, 1.4, 0.01);
  EXPECT_NEAR(d.share, 0.5, 0.05);
  EXPECT_EQ(d.rules.front(), "GL201");
}

TEST(Classifier, DropsAveragedByNvmlStillCount) {
  // Short pauses never read zero: NVML averages them over its period into dips to ~20%.
  std::vector<double> u;
  for (int cycle = 0; cycle < 10; ++cycle) u = concat({u, repeat(70, 6), repeat(20, 4)});
  EXPECT_EQ(classify_series(u).shape, Shape::SawTooth);
}

TEST(Classifier, TwoDropsAreNoRhythm) {
  const Diagnosis d = classify_series(
      concat({repeat(95, 100), repeat(0, 20), repeat(95, 100), repeat(0, 20), repeat(95, 100)}));
  EXPECT_EQ(d.drops, 2);
  EXPECT_EQ(d.shape, Shape::Healthy);
}

TEST(Classifier, SteadyLowIsFlatLow) {
  std::vector<double> u;
  for (int i = 0; i < 200; ++i) u.push_back(i % 2 ? 38 : 42);
  const Diagnosis d = classify_series(concat({repeat(0, 40), u}));
  EXPECT_EQ(d.shape, Shape::FlatLow);
  EXPECT_NEAR(d.mean_utilization, 40, 0.5);
  EXPECT_EQ(d.rules.front(), "GL101");
}

TEST(Classifier, BurstThenNothingIsSpikeThenZero) {
  const Diagnosis d = classify_series(concat({repeat(0, 40), repeat(100, 30), repeat(0, 200)}));
  EXPECT_EQ(d.shape, Shape::SpikeThenZero);
  EXPECT_NEAR(d.share, 200.0 / 230.0, 0.01);
  EXPECT_EQ(d.rules, (std::vector<std::string>{"GL102", "GL301", "GL302"}));
}

TEST(Classifier, BriefBurstIsSpikeThenZeroEvenWithoutATail) {
  EXPECT_EQ(classify_series(concat({repeat(0, 200), repeat(100, 5)})).shape, Shape::SpikeThenZero);
}

// Measured on the H200 (issue 25): 25 s of GPU work, then 22 s on the CPU, called healthy with
// no word of the tail. The shape stays healthy; the tail is named.
TEST(Classifier, ALongIdleTailIsNamedWhateverTheShape) {
  const Diagnosis d = classify_series(concat({repeat(100, 500), repeat(0, 440)}));
  EXPECT_EQ(d.shape, Shape::Healthy);
  ASSERT_EQ(d.idle.size(), 1u);
  EXPECT_EQ(d.idle[0].where, IdleSegment::Where::Tail);
  EXPECT_NEAR(d.idle[0].start_s, 25.95, 0.01);  // the last busy reading, 1 s + 499 x 50 ms
  EXPECT_NEAR(d.idle[0].length_s, 22.0, 0.01);
  EXPECT_NEAR(d.idle[0].share, 22.0 / 47.95, 0.01);
  EXPECT_EQ(
      describe(d.idle[0]),
      "idle tail: from 25.9 s to the end, 22.0 s (46% of the run), after the GPU's last work");
}

TEST(Classifier, ALongIdleHeadIsNamedAndAShortStartUpIsNot) {
  const Diagnosis head = classify_series(concat({repeat(0, 300), repeat(100, 500)}));
  EXPECT_EQ(head.shape, Shape::Healthy);
  ASSERT_EQ(head.idle.size(), 1u);
  EXPECT_EQ(head.idle[0].where, IdleSegment::Where::Head);
  EXPECT_NEAR(head.idle[0].length_s, 16.0, 0.01);
  // Two seconds of start-up before a 40 s loop, and a second of teardown: nothing to name.
  EXPECT_TRUE(
      classify_series(concat({repeat(0, 20), repeat(100, 800), repeat(0, 20)})).idle.empty());
}

TEST(Classifier, SpikeThenZeroNamesItsTailToo) {
  const Diagnosis d = classify_series(concat({repeat(0, 40), repeat(100, 30), repeat(0, 400)}));
  EXPECT_EQ(d.shape, Shape::SpikeThenZero);
  ASSERT_EQ(d.idle.size(), 1u);
  EXPECT_EQ(d.idle[0].where, IdleSegment::Where::Tail);
  EXPECT_NEAR(d.idle[0].length_s, 20.0, 0.01);
}

TEST(Classifier, EveryRuleItNamesExists) {
  for (Shape shape :
       {Shape::Idle, Shape::Healthy, Shape::SawTooth, Shape::FlatLow, Shape::SpikeThenZero}) {
    Diagnosis d;
    // Build a series of each shape so the rule list comes from classify itself.
    switch (shape) {
      case Shape::Idle:
        d = classify_series(repeat(0, 50));
        break;
      case Shape::Healthy:
        d = classify_series(repeat(99, 50));
        break;
      case Shape::SawTooth:
        d = classify_series(concat({repeat(99, 10), repeat(0, 10), repeat(99, 10), repeat(0, 10),
                                    repeat(99, 10), repeat(0, 10), repeat(99, 10)}));
        break;
      case Shape::FlatLow:
        d = classify_series(repeat(40, 50));
        break;
      default:
        d = classify_series(concat({repeat(99, 10), repeat(0, 40)}));
    }
    ASSERT_EQ(d.shape, shape);
    EXPECT_FALSE(d.cause.empty());
    for (const std::string& code : d.rules) {
      EXPECT_NE(find_rule(code), nullptr) << shape_name(shape) << " names unknown rule " << code;
    }
  }
}

// fixtures/traces/<shape>__<case>.json: recorded by `gpulint watch --output` on an H200 from
// the script of the same name; the shape is the one the script was written to produce.
TEST(Classifier, RecordedTracesGetTheShapeTheirScriptReproduces) {
  const fs::path dir = fs::path(GPULINT_SOURCE_DIR) / "fixtures" / "traces";
  std::set<std::string> shapes_seen;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string stem = entry.path().stem().string();
    std::string expected = stem.substr(0, stem.find("__"));
    std::replace(expected.begin(), expected.end(), '_', '-');
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    const std::optional<Trace> trace = read_trace_json(text.str(), &error);
    ASSERT_TRUE(trace) << entry.path() << ": " << error;
    ASSERT_FALSE(trace->gpus.empty()) << entry.path();
    const Diagnosis d = diagnose(*trace).front();
    EXPECT_EQ(shape_name(d.shape), expected) << entry.path() << ": " << d.summary;
    shapes_seen.insert(expected);
  }
  EXPECT_EQ(shapes_seen,
            (std::set<std::string>{"healthy", "saw-tooth", "flat-low", "spike-then-zero", "idle"}));
}

// Recorded on the H200 (fixtures/traces/RUNS.md): each idle tail named, with its length.
TEST(Classifier, RecordedIdleTailsAreNamed) {
  for (const auto& [name, tail_s] : {std::pair{"healthy__gpu_25s_then_cpu_22s", 22.2},
                                     std::pair{"spike_then_zero__warmup_then_cpu", 20.7}}) {
    std::ifstream in(fs::path(GPULINT_SOURCE_DIR) / "fixtures" / "traces" /
                     (name + std::string(".json")));
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    const std::optional<Trace> trace = read_trace_json(text.str(), &error);
    ASSERT_TRUE(trace) << name << ": " << error;
    const Diagnosis d = diagnose(*trace).front();
    ASSERT_FALSE(d.idle.empty()) << name;
    EXPECT_EQ(d.idle.back().where, IdleSegment::Where::Tail) << name;
    EXPECT_NEAR(d.idle.back().length_s, tail_s, 0.1) << name;
  }
}

}  // namespace
}  // namespace gpulint::system
