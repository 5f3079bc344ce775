#include "stats/systematic_interval.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(SystematicIntervalTest, NoSystematicErrorLeavesTheIntervalAsItIs) {
  const Interval widened = with_systematic_error(1.0, {0.99, 1.02}, 0.0);
  EXPECT_DOUBLE_EQ(widened.low, 0.99);
  EXPECT_DOUBLE_EQ(widened.high, 1.02);
}

TEST(SystematicIntervalTest, ANarrowIntervalWidensToAboutTheSystematicError) {
  const Interval widened = with_systematic_error(2.0, {2.0, 2.0}, 0.05);
  EXPECT_NEAR(widened.high, 2.0 * 1.05, 1e-12);
  EXPECT_NEAR(widened.low, 2.0 / 1.05, 1e-12);
}

TEST(SystematicIntervalTest, BothErrorsAddInQuadratureOnEachSideApart) {
  const Interval widened = with_systematic_error(1.0, {std::exp(-0.03), std::exp(0.01)}, std::expm1(0.04));
  EXPECT_NEAR(std::log(widened.low), -0.05, 1e-12);                   // hypot(0.03, 0.04)
  EXPECT_NEAR(std::log(widened.high), std::hypot(0.01, 0.04), 1e-12);  // the narrow side stays narrower
}

TEST(SystematicIntervalTest, AnIntervalBesideItsEstimateStillHoldsBoth) {
  const Interval widened = with_systematic_error(1.0, {1.01, 1.02}, 0.05);
  EXPECT_NEAR(widened.low, 1.0 / 1.05, 1e-12);  // that side: the systematic error alone
  EXPECT_GT(widened.high, 1.02);
}

TEST(SystematicIntervalTest, RejectsNonPositiveValuesAndNegativeWidths) {
  EXPECT_THROW(with_systematic_error(0.0, {0.0, 1.0}, 0.05), std::invalid_argument);
  EXPECT_THROW(with_systematic_error(1.0, {0.9, 1.1}, -0.01), std::invalid_argument);
  EXPECT_THROW(with_systematic_error(std::nan(""), {0.9, 1.1}, 0.01), std::invalid_argument);
}

}  // namespace
}  // namespace keval
