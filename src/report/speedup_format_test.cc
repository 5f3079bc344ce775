#include "report/speedup_format.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(SpeedupFormat, TwoDecimalsFromATenthUp) {
  EXPECT_EQ(format_speedup(1.0), "1.00");
  EXPECT_EQ(format_speedup(12.345), "12.35");
  EXPECT_EQ(format_speedup(0.1), "0.10");
}

TEST(SpeedupFormat, TwoSignificantDigitsBelowATenthNeverZero) {
  EXPECT_EQ(format_speedup(0.0045), "0.0045");  // was "0.00"
  EXPECT_EQ(format_speedup(0.012345), "0.012");
  EXPECT_EQ(format_speedup(0.099), "0.099");
  EXPECT_EQ(format_speedup(0.0), "0");
}

}  // namespace
}  // namespace keval
