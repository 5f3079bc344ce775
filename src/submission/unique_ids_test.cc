#include "submission/unique_ids.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(UniqueIdsTest, AGivenIdUsedTwiceIsRefusedNamingBothLines) {
  std::vector<Submission> subs = {usable_submission("relu", "a", "mine", "s.jsonl:1"),
                                  usable_submission("relu", "b", "mine", "s.jsonl:4")};
  try {
    make_ids_unique(subs);
    FAIL() << "a repeated id was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("s.jsonl:4: id \"mine\" was already used at s.jsonl:1", 0), 0u) << what;
  }
}

TEST(UniqueIdsTest, TheSameCodeWithoutIdsGetsNumberedSuffixes) {
  std::vector<Submission> subs = {usable_submission("relu", "a", "", "s.jsonl:1"),
                                  usable_submission("relu", "a", "", "s.jsonl:2"),
                                  usable_submission("relu", "a", "", "s.jsonl:3")};
  make_ids_unique(subs);
  EXPECT_EQ(subs[1].id, subs[0].id + "-2");
  EXPECT_EQ(subs[2].id, subs[0].id + "-3");
}

}  // namespace
}  // namespace keval
