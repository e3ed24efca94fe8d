#include "verifier/harness/stable.h"

#include <gtest/gtest.h>

namespace gpulint::verifier {
namespace {

// A clock that advances only when told to, so budgets are exact.
struct FakeClock {
  double t = 0;
  std::function<double()> fn() {
    return [this] { return t; };
  }
};

TEST(VerifierStable, ConstantFigureSettlesAtTheFirstCheck) {
  FakeClock clock;
  int calls = 0;
  StableOptions o;
  o.warmup = 2;
  o.min_samples = 5;
  o.batch = 5;
  const StableResult r = measure_until_stable(
      [&] {
        ++calls;
        return 10.0;
      },
      o, clock.fn());
  EXPECT_TRUE(r.stable);
  EXPECT_EQ(r.summary.samples, 10u);  // the minimum, then one batch to confirm
  EXPECT_EQ(calls, 12);               // plus the warm-up, which is not kept
  EXPECT_DOUBLE_EQ(r.summary.median, 10.0);
}

TEST(VerifierStable, WarmUpSamplesAreThrownAway) {
  FakeClock clock;
  int calls = 0;
  StableOptions o;
  o.warmup = 3;
  // The first samples are slow (a cold pool), the rest steady.
  const StableResult r =
      measure_until_stable([&] { return ++calls <= 3 ? 1000.0 : 5.0; }, o, clock.fn());
  EXPECT_DOUBLE_EQ(r.summary.max, 5.0);
}

TEST(VerifierStable, DriftingFigureStopsAtTheBudgetUnstable) {
  FakeClock clock;
  double value = 1;
  StableOptions o;
  o.budget_s = 1.0;
  o.max_samples = 1000;
  const StableResult r = measure_until_stable(
      [&] {
        clock.t += 0.1;
        value *= 1.5;  // the median keeps moving by far more than 2%
        return value;
      },
      o, clock.fn());
  EXPECT_FALSE(r.stable);
  EXPECT_LE(r.summary.samples, 15u);
}

TEST(VerifierStable, MaxSamplesCapsTheLoop) {
  FakeClock clock;
  double value = 1;
  StableOptions o;
  o.max_samples = 12;
  o.budget_s = 1e9;
  const StableResult r = measure_until_stable([&] { return value *= 2; }, o, clock.fn());
  EXPECT_FALSE(r.stable);
  EXPECT_EQ(r.summary.samples, 12u);
}

TEST(VerifierStable, NoisyButCentredFigureSettles) {
  FakeClock clock;
  int i = 0;
  const double noise[] = {1.0, -1.0, 0.5, -0.5, 0.0};
  const StableResult r =
      measure_until_stable([&] { return 100.0 + noise[i++ % 5]; }, {}, clock.fn());
  EXPECT_TRUE(r.stable);
  EXPECT_NEAR(r.summary.median, 100.0, 0.5);
  EXPECT_LT(r.summary.p25, r.summary.p75);
}

}  // namespace
}  // namespace gpulint::verifier
