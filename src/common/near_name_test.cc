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

TEST(NearNameTest, NearNamesOfAGlobIgnoreWildcardsAndListContainingNamesFirst) {
  const std::vector<std::string> tasks = {"softmax", "online_softmax", "relu", "rms_norm", "layer_norm"};
  EXPECT_EQ(near_names("softmx*", tasks), (std::vector<std::string>{"softmax"}));
  EXPECT_EQ(near_names("*norm", tasks), (std::vector<std::string>{"rms_norm", "layer_norm"}));
  EXPECT_TRUE(near_names("qqqqqqqq", tasks).empty());
  EXPECT_EQ(near_names("soft", tasks, 1).size(), 1u);
}

}  // namespace keval
