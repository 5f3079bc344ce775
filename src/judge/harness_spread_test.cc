#include "judge/harness_spread.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(HarnessSpreadTest, ShorterKernelsReadFurtherApartOnTheGpu) {
  EXPECT_DOUBLE_EQ(harness_spread("cuda_event_cold_l2", 0.004), 0.07);
  EXPECT_DOUBLE_EQ(harness_spread("cuda_event_cold_l2", 0.02), 0.05);
  EXPECT_DOUBLE_EQ(harness_spread("cuda_event_cold_l2", 0.2), 0.0125);
  EXPECT_DOUBLE_EQ(harness_spread("cuda_event_cold_l2", 3.0), 0.011);
}

TEST(HarnessSpreadTest, NothingAddedWhereItWasNotMeasured) {
  EXPECT_DOUBLE_EQ(harness_spread("wall_clock", 0.004), 0.0);
  EXPECT_DOUBLE_EQ(harness_spread("", 1.0), 0.0);
}

}  // namespace
}  // namespace keval
