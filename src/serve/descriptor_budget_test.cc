#include "serve/descriptor_budget.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(DescriptorBudgetTest, AnAskedBoundThatFitsIsKeptAndOneThatDoesNotIsRefusedInOneLine) {
  std::string note;
  EXPECT_EQ(fit_max_connections(100, 512, 1024, 200, note), 100u);
  EXPECT_EQ(note, "");
  try {
    fit_max_connections(900, 512, 1024, 200, note);
    FAIL() << "900 connections and 200 more descriptors fit no limit of 1024";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_NE(what.find("--max-connections 900 needs 1100 file descriptors"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 1024 (ulimit -n)"), std::string::npos) << what;
    EXPECT_NE(what.find("give --max-connections 824 or less"), std::string::npos) << what;
  }
}

TEST(DescriptorBudgetTest, TheDefaultIsClampedToTheLimitAndSaysSo) {
  std::string note;
  EXPECT_EQ(fit_max_connections(0, 512, 4096, 200, note), 512u);
  EXPECT_EQ(note, "");
  EXPECT_EQ(fit_max_connections(0, 512, 300, 200, note), 100u);
  EXPECT_NE(note.find("holding at most 100 connections, not the default 512"), std::string::npos) << note;
  EXPECT_THROW(fit_max_connections(0, 512, 200, 200, note), std::runtime_error) << "no room for one connection";
}

TEST(DescriptorBudgetTest, EachSlotAndLaneNeedsMore) {
  const size_t one = descriptors_besides_connections({1, 2});
  EXPECT_GT(descriptors_besides_connections({1, 16}), one);
  EXPECT_GT(descriptors_besides_connections({4, 2}), one);
  EXPECT_EQ(gpus_at_most("cuda", {0, 3}), 2u);
  EXPECT_EQ(gpus_at_most("cpu", {}), 1u);
  EXPECT_GE(gpus_at_most("auto", {}), 1u);
}

// ctest runs each test in a process of its own: this one's lowered limit ends with it.
TEST(DescriptorBudgetTest, TheSoftLimitIsRaisedToTheHardOneOnlyWhenTooLow) {
  rlimit start{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &start), 0);
  if (start.rlim_max == RLIM_INFINITY || start.rlim_max < 64) GTEST_SKIP() << "no finite hard limit to raise to";
  rlimit lowered = start;
  lowered.rlim_cur = 32;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  EXPECT_EQ(raise_descriptor_limit(16), 32u) << "enough already: left as it is";
  EXPECT_EQ(raise_descriptor_limit(48), static_cast<size_t>(start.rlim_max));
  rlimit now{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, start.rlim_max);
}

}  // namespace
}  // namespace keval
