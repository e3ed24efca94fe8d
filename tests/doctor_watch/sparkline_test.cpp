#include "watch/sparkline.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpulint::system {
namespace {

TEST(Sparkline, OneCharacterPerSampleWhenTheyFit) { EXPECT_EQ(sparkline({0, 50, 100}, 10), "▁▅█"); }

TEST(Sparkline, LevelsCoverZeroToHundred) {
  EXPECT_EQ(sparkline({0, 12.4, 12.5, 25, 37.5, 50, 62.5, 75, 87.5, 100}, 20), "▁▁▂▃▄▅▆▇██");
}

TEST(Sparkline, OutOfRangeValuesAreClamped) { EXPECT_EQ(sparkline({-5, 140}, 10), "▁█"); }

TEST(Sparkline, LongSeriesAreAveragedIntoTheWidth) {
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(i < 50 ? 0 : 100);
  EXPECT_EQ(sparkline(values, 4), "▁▁██");
  // Each bucket is a mean: two samples of 0 and 100 make 50%.
  EXPECT_EQ(sparkline({0, 100, 0, 100}, 2), "▅▅");
}

TEST(Sparkline, NeverWiderThanAsked) {
  const std::vector<double> values(1000, 42);
  const std::string line = sparkline(values, 60);
  EXPECT_EQ(line.size(), 60u * std::string("▁").size());
}

TEST(Sparkline, MissingReadingsAreBlank) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(sparkline({100, nan, 0}, 3), "█ ▁");
}

TEST(Sparkline, EmptyInEmptyOut) {
  EXPECT_EQ(sparkline({}, 10), "");
  EXPECT_EQ(sparkline({50}, 0), "");
}

}  // namespace
}  // namespace gpulint::system
