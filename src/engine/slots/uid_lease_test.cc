#include "engine/slots/uid_lease.h"

#include <gtest/gtest.h>

#include <set>

namespace keval {

TEST(UidLeaseTest, TwoRunsNeverShareAUid) {
  auto dir = std::filesystem::temp_directory_path() / ("keval_uids_" + std::to_string(::getpid()));
  auto first = UidLease::acquire(3, 70000, 8, dir);
  ASSERT_TRUE(first.has_value());
  auto second = UidLease::acquire(3, 70000, 8, dir);
  ASSERT_TRUE(second.has_value());
  std::set<int> all(first->uids().begin(), first->uids().end());
  all.insert(second->uids().begin(), second->uids().end());
  EXPECT_EQ(all.size(), 6u);
  EXPECT_FALSE(UidLease::acquire(3, 70000, 8, dir).has_value());  // only 2 left
  first.reset();                                                   // released with the run
  EXPECT_TRUE(UidLease::acquire(3, 70000, 8, dir).has_value());
  std::filesystem::remove_all(dir);
}

}  // namespace keval
