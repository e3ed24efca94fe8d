#include "verifier/harness/stats.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpulint::verifier {
namespace {

TEST(VerifierStats, QuartilesInterpolateBetweenRanks) {
  const Summary s = summarize({4, 1, 3, 2, 5});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p25, 2);
  EXPECT_DOUBLE_EQ(s.p75, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_EQ(s.samples, 5u);
}

TEST(VerifierStats, EvenCountTakesTheMidpoint) {
  const Summary s = summarize({10, 20, 30, 40});
  EXPECT_DOUBLE_EQ(s.median, 25);
  EXPECT_DOUBLE_EQ(s.p25, 17.5);
  EXPECT_DOUBLE_EQ(s.p75, 32.5);
}

TEST(VerifierStats, OneSampleIsItsOwnSpread) {
  const Summary s = summarize({7});
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.p25, 7);
  EXPECT_DOUBLE_EQ(s.max, 7);
}

TEST(VerifierStats, NoSamplesIsAnError) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(quantile_sorted({}, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace gpulint::verifier
