#include "common/cache_root.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(CacheRootTest, RootKeepsTheSharedFolderItsLeasedUidsReach) {
  EXPECT_EQ(default_cache_root(0, nullptr, "/root", true), "/var/tmp/keval-cache");
}

TEST(CacheRootTest, OtherUsersGetAFolderOfTheirOwn) {
  EXPECT_EQ(default_cache_root(1000, nullptr, "/home/ann", true), "/home/ann/.cache/keval");
  EXPECT_EQ(default_cache_root(1000, "/home/ann/.xdg", "/home/ann", true), "/home/ann/.xdg/keval");
  // A home that is not the user's (runuser keeps root's HOME) is not used.
  EXPECT_EQ(default_cache_root(1000, nullptr, "/root", false), "/var/tmp/keval-cache-uid-1000");
}

}  // namespace
}  // namespace keval
