#include "stats/summary_stats.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(StatsSummaryTest, MedianOfOddCountIsMiddleValue) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
}

TEST(StatsSummaryTest, MedianOfEvenCountAveragesMiddlePair) {
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
}

TEST(StatsSummaryTest, MedianThrowsOnEmptySample) {
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(StatsSummaryTest, MedianThrowsOnNaN) {
  EXPECT_THROW(median({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(StatsSummaryTest, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 10.0);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 40.0);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 25.0);
  // rank = 0.25 * 3 = 0.75 -> 10 + 0.75 * 10
  EXPECT_DOUBLE_EQ(percentile(v, 25), 17.5);
  EXPECT_DOUBLE_EQ(percentile({5}, 90), 5.0);
}

TEST(StatsSummaryTest, PercentileIgnoresInputOrder) {
  EXPECT_DOUBLE_EQ(percentile({40, 10, 30, 20}, 25), 17.5);
}

TEST(StatsSummaryTest, PercentileRejectsPOutsideRange) {
  EXPECT_THROW(percentile({1, 2}, -1), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, 100.5), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, std::nan("")), std::invalid_argument);
}

TEST(StatsSummaryTest, IqrIsSpreadOfMiddleHalf) {
  // 1..9: p25 = 3, p75 = 7
  EXPECT_DOUBLE_EQ(iqr({9, 1, 2, 3, 4, 5, 6, 7, 8}), 4.0);
  EXPECT_DOUBLE_EQ(iqr({2, 2, 2}), 0.0);
}

TEST(StatsSummaryTest, MeanAveragesValues) {
  EXPECT_DOUBLE_EQ(mean({1, 2, 3, 6}), 3.0);
  EXPECT_THROW(mean({}), std::invalid_argument);
}

}  // namespace
}  // namespace keval
