#include "stats/bootstrap.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

namespace keval {
namespace {

// Times around `center` ms with a few percent of noise.
std::vector<double> noisy_times(double center, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.03 * center);
  std::vector<double> times;
  for (int i = 0; i < count; ++i) times.push_back(center + noise(rng));
  return times;
}

TEST(StatsBootstrapTest, IntervalContainsTrueRatioOfSeparatedSamples) {
  const Interval ci = bootstrap_ratio_ci(noisy_times(2.0, 50, 7), noisy_times(1.0, 50, 8));
  EXPECT_LT(ci.low, 2.0);
  EXPECT_GT(ci.high, 2.0);
  EXPECT_GT(ci.low, 1.5);  // clearly a speedup, not a tie
}

TEST(StatsBootstrapTest, IntervalNarrowsAsSamplesGrow) {
  const Interval few = bootstrap_ratio_ci(noisy_times(2.0, 10, 1), noisy_times(1.0, 10, 2));
  const Interval many = bootstrap_ratio_ci(noisy_times(2.0, 400, 1), noisy_times(1.0, 400, 2));
  EXPECT_LT(many.high - many.low, (few.high - few.low) / 2.0);
}

TEST(StatsBootstrapTest, SameSeedGivesSameInterval) {
  const auto base = noisy_times(3.0, 30, 3);
  const auto cand = noisy_times(2.0, 30, 4);
  const Interval a = bootstrap_ratio_ci(base, cand, 0.95, 500, 42);
  const Interval b = bootstrap_ratio_ci(base, cand, 0.95, 500, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
}

TEST(StatsBootstrapTest, HigherConfidenceGivesWiderInterval) {
  const auto base = noisy_times(3.0, 30, 5);
  const auto cand = noisy_times(2.0, 30, 6);
  const Interval narrow = bootstrap_ratio_ci(base, cand, 0.5);
  const Interval wide = bootstrap_ratio_ci(base, cand, 0.99);
  EXPECT_LE(wide.low, narrow.low);
  EXPECT_GE(wide.high, narrow.high);
}

TEST(StatsBootstrapTest, ConstantSamplesGiveExactRatio) {
  const Interval ci = bootstrap_ratio_ci({4, 4, 4}, {2, 2});
  EXPECT_DOUBLE_EQ(ci.low, 2.0);
  EXPECT_DOUBLE_EQ(ci.high, 2.0);
}

TEST(StatsBootstrapTest, RejectsEmptyOrNonPositiveSamplesAndBadParameters) {
  EXPECT_THROW(bootstrap_ratio_ci({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_ci({1.0}, {0.0}), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_ci({1.0}, {1.0}, 1.0), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_ci({1.0}, {1.0}, 0.95, 0), std::invalid_argument);
}

TEST(StatsBootstrapTest, MedianIntervalBracketsTheMedianAndNarrowsWithSamples) {
  const Interval few = bootstrap_median_ci(noisy_times(1.0, 10, 3));
  const Interval many = bootstrap_median_ci(noisy_times(1.0, 400, 3));
  EXPECT_LT(many.low, 1.0);
  EXPECT_GT(many.high, 1.0);
  EXPECT_LT(many.high - many.low, (few.high - few.low) / 2.0);
  EXPECT_THROW(bootstrap_median_ci({}), std::invalid_argument);
}

TEST(BootstrapTest, GeomeanIntervalHoldsTheGeomeanAndIsReproducible) {
  const std::vector<double> speedups = {0.5, 0.9, 1.1, 1.3, 2.0, 2.5};
  const Interval a = bootstrap_geomean_ci(speedups);
  const Interval b = bootstrap_geomean_ci(speedups);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  const double geomean = std::exp((std::log(0.5) + std::log(0.9) + std::log(1.1) + std::log(1.3) +
                                   std::log(2.0) + std::log(2.5)) / 6.0);
  EXPECT_LT(a.low, geomean);
  EXPECT_GT(a.high, geomean);
  EXPECT_GE(a.low, 0.5);
  EXPECT_LE(a.high, 2.5);
}

TEST(BootstrapTest, GeomeanIntervalOfOneValueIsThatValue) {
  const Interval i = bootstrap_geomean_ci({1.7});
  EXPECT_DOUBLE_EQ(i.low, 1.7);
  EXPECT_DOUBLE_EQ(i.high, 1.7);
  EXPECT_THROW(bootstrap_geomean_ci({1.0, -2.0}), std::invalid_argument);
}

}  // namespace
}  // namespace keval
