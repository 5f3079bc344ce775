#include "common/near_name.h"

#include <gtest/gtest.h>

namespace keval {

TEST(NearNameTest, DistanceCountsEdits) {
  EXPECT_EQ(edit_distance("softmax", "softmax"), 0);
  EXPECT_EQ(edit_distance("sofmax", "softmax"), 1);
  EXPECT_EQ(edit_distance("", "abc"), 3);
}

TEST(NearNameTest, SuggestsCloseNameOnly) {
  std::vector<std::string> names = {"tolerance", "track", "category"};
  EXPECT_EQ(nearest_name("tolerence", names), "tolerance");
  EXPECT_EQ(nearest_name("zzzzzz", names), "");
  EXPECT_EQ(did_you_mean("trak", names), " (did you mean \"track\"?)");
  EXPECT_EQ(did_you_mean("qqqqqqqq", names), "");
}

}  // namespace keval
