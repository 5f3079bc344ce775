#include "stats/speedup_stats.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(StatsSpeedupTest, GeomeanOfOneAndFourIsTwo) {
  EXPECT_DOUBLE_EQ(*geomean({1, 4}), 2.0);
  EXPECT_NEAR(*geomean({0.5, 2.0, 8.0}), 2.0, 1e-12);
}

TEST(StatsSpeedupTest, GeomeanOfNothingIsNullopt) {
  EXPECT_FALSE(geomean({}).has_value());
}

TEST(StatsSpeedupTest, GeomeanThrowsOnNonPositiveValue) {
  EXPECT_THROW(geomean({1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(geomean({-2.0}), std::invalid_argument);
}

TEST(StatsSpeedupTest, GeomeanSurvivesValuesWhoseProductOverflows) {
  EXPECT_NEAR(*geomean(std::vector<double>(400, 1e300)) / 1e300, 1.0, 1e-9);
}

TEST(StatsSpeedupTest, FastPCountsPassingFasterThanPOverAllSubmissions) {
  const std::vector<std::optional<double>> speedups = {2.0, 0.5, std::nullopt, 1.5, std::nullopt};
  EXPECT_DOUBLE_EQ(fast_p(speedups, 0.0), 3.0 / 5.0);  // fast_0 = correctness rate
  EXPECT_DOUBLE_EQ(fast_p(speedups, 1.0), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(fast_p(speedups, 1.5), 1.0 / 5.0);  // strictly greater than p
  EXPECT_DOUBLE_EQ(fast_p(speedups, 3.0), 0.0);
}

TEST(StatsSpeedupTest, FastPOfNoSubmissionsIsZero) {
  EXPECT_DOUBLE_EQ(fast_p({}, 1.0), 0.0);
}

TEST(StatsSpeedupTest, FastPIsNotMeasuredWhenPassesWereNeverTimed) {
  const std::vector<std::optional<double>> untimed = {std::nullopt, std::nullopt, std::nullopt};
  EXPECT_FALSE(measured_fast_p(untimed, 2, 0.0).has_value());  // --no-timing: unknown, not 0
  EXPECT_DOUBLE_EQ(*measured_fast_p(untimed, 0, 0.0), 0.0);     // nothing passed: none is fast
  EXPECT_DOUBLE_EQ(*measured_fast_p({2.0, std::nullopt}, 1, 1.0), 0.5);
}

TEST(StatsSpeedupTest, PassAtKMatchesKnownValues) {
  EXPECT_DOUBLE_EQ(pass_at_k(5, 1, 1), 0.2);
  EXPECT_DOUBLE_EQ(pass_at_k(5, 0, 3), 0.0);
  EXPECT_DOUBLE_EQ(pass_at_k(5, 5, 1), 1.0);
  // 1 - C(8,2)/C(10,2) = 1 - 28/45
  EXPECT_NEAR(pass_at_k(10, 2, 2), 1.0 - 28.0 / 45.0, 1e-12);
  // n - c < k: every draw contains a pass
  EXPECT_DOUBLE_EQ(pass_at_k(10, 8, 3), 1.0);
}

TEST(StatsSpeedupTest, PassAtKStaysFiniteForLargeN) {
  // Both binomials overflow a double; exact values from Python's math.comb.
  EXPECT_NEAR(pass_at_k(1000, 100, 100), 0.9999853031619732, 1e-12);
  EXPECT_NEAR(pass_at_k(1000, 10, 10), 0.09603154864011314, 1e-12);
}

TEST(StatsSpeedupTest, PassAtKRejectsInconsistentCounts) {
  EXPECT_THROW(pass_at_k(5, 6, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 1, 0), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 1, 6), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, -1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace keval
