// The timeline of a few steps (every moment of a step is the GPU busy or idle for a named
// cause) and its picture, on synthetic steps whose answer is known.

#include <gtest/gtest.h>

#include "profile/attribution.h"
#include "profile/timeline_svg.h"
#include "tests/svg_check.h"

namespace gpulint::profile {
namespace {

// A step of 1000 us: a wait for a batch (0-200), the GPU busy 200-600 while the host works,
// then a print holding the host 600-800 while the GPU has nothing to do.
Trace one_step() {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({200, 600});
  t.waits.push_back({HostWait::Kind::Data, {0, 200}, {0, 200}, {"/w/train.py", 73}});
  t.waits.push_back(
      {HostWait::Kind::Sync, {600, 610}, {600, 800}, {"/w/train.py", 91}, SyncCause::Print});
  return t;
}

// The picture of rank 0's steps, lines named by their number alone.
std::string svg_of(const std::string& command, const Attribution& a, const Timeline& t) {
  return timeline_svg(
      {command, 0, &a, &t,
       [](const SourceLine& where) { return "train.py:" + std::to_string(where.line); },
       [](SyncCause) { return std::string("a print that reads tensors"); }});
}

TEST(ProfileTimeline, EveryMomentOfTheStepHasItsCause) {
  const Timeline t = timeline(one_step(), 3);
  ASSERT_EQ(t.steps.size(), 1u);
  ASSERT_EQ(t.segments.size(), 4u);
  EXPECT_EQ(t.segments[0].kind, Segment::Kind::Data);
  EXPECT_EQ(t.segments[0].where.line, 73);
  EXPECT_EQ(t.segments[1].kind, Segment::Kind::Busy);
  EXPECT_EQ(t.segments[2].kind, Segment::Kind::Line);
  EXPECT_EQ(t.segments[2].where.line, 91);
  EXPECT_DOUBLE_EQ(t.segments[2].when.length(), 200);
  EXPECT_EQ(t.segments[3].kind, Segment::Kind::Host);
  EXPECT_DOUBLE_EQ(t.segments[3].when.start, 800);
  EXPECT_DOUBLE_EQ(t.segments[3].when.end, 1000);
  EXPECT_TRUE(t.segments[3].where.file.empty());  // nothing sampled there
}

// The host's other work is named by the line sampled most inside it.
TEST(ProfileTimeline, TheHostsOtherWorkIsNamedByItsMostSampledLine) {
  const Timeline t = timeline(one_step(), 3,
                              {{950, {"/w/train.py", 60}},
                               {850, {"/w/train.py", 60}},
                               {900, {"/w/train.py", 62}},
                               {700, {"/w/train.py", 91}}});
  ASSERT_EQ(t.segments.size(), 4u);
  EXPECT_EQ(t.segments[3].kind, Segment::Kind::Host);
  EXPECT_EQ(t.segments[3].where.line, 60);
  EXPECT_EQ(t.segments[2].where.line, 91);  // a marked line keeps its own
  const Attribution a = attribute(one_step(), 900.0);
  EXPECT_NE(
      svg_of("python train.py", a, t)
          .find("<title>GPU idle 0.20 ms: the host's other work, sampled mostly at train.py:60"),
      std::string::npos);
}

TEST(ProfileTimeline, ThePictureNamesTheLineUnderEachGapAndBreaksTheStepDown) {
  const Trace trace = one_step();
  const Attribution a = attribute(trace, 900.0);
  const Timeline t = timeline(trace, 3);
  const std::string svg = svg_of("python train.py --tag <a&b>", a, t);
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(svg_check::balanced(svg)) << svg;
  EXPECT_NE(svg.find("python train.py --tag &lt;a&amp;b&gt;"), std::string::npos);
  // Hover text on each gap: the line and what it did.
  EXPECT_NE(svg.find("<title>GPU idle 0.20 ms: the host waiting for its next batch at "
                     "train.py:73</title>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>GPU idle 0.20 ms: the host in train.py:91 (a print that reads "
                     "tensors)</title>"),
            std::string::npos)
      << svg;
  EXPECT_EQ(svg_check::count(svg, "class=\"busy\""), 2u);  // the lane and the bar
  EXPECT_NE(svg.find("the mean step, 1.00 ms"), std::string::npos);
  EXPECT_NE(svg.find("1.00 ms under the profiler, 0.90 ms without it"), std::string::npos);
  EXPECT_NE(svg.find("train.py:91: a print that reads tensors"), std::string::npos);
}

}  // namespace
}  // namespace gpulint::profile
