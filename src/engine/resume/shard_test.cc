#include "engine/resume/shard.h"

#include <gtest/gtest.h>

#include <set>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

std::vector<Submission> many(int n) {
  std::vector<Submission> all;
  for (int i = 0; i < n; ++i) {
    all.push_back(usable_submission("relu", "def relu(x): return x  # " + std::to_string(i), "", "f:" + std::to_string(i)));
  }
  return all;
}

TEST(ShardTest, ParsesIndexOverCount) {
  EXPECT_EQ(parse_shard("2/4"), (Shard{2, 4}));
  EXPECT_EQ(parse_shard("0/1"), (Shard{0, 1}));
}

TEST(ShardTest, RejectsMalformedOrOutOfRangeSpecsNamingTheOption) {
  for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4x", ""}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--shard"), std::string::npos);
    }
  }
}

TEST(ShardTest, EverySubmissionFallsInExactlyOneShard) {
  const auto all = many(40);
  std::multiset<std::string> seen;
  for (int i = 0; i < 4; ++i) {
    for (const auto& s : select_shard(all, {i, 4})) seen.insert(s.origin);
  }
  EXPECT_EQ(seen.size(), all.size());
  for (const auto& s : all) EXPECT_EQ(seen.count(s.origin), 1u);
}

TEST(ShardTest, TheSameCodeAlwaysFallsInTheSameShardWhateverItsId) {
  const auto a = usable_submission("relu", "same", "first", "f:1");
  const auto b = usable_submission("relu", "same", "second", "f:9");
  EXPECT_EQ(shard_of(a, 7), shard_of(b, 7));
}

TEST(ShardTest, KeepsTheOriginalOrderWithinAShard) {
  const auto all = many(20);
  const auto part = select_shard(all, {1, 3});
  for (size_t i = 1; i < part.size(); ++i) {
    EXPECT_LT(std::stoi(part[i - 1].origin.substr(2)), std::stoi(part[i].origin.substr(2)));
  }
}

TEST(ShardTest, ShardFileRoundTripsAndAWholeRunHasNone) {
  ScratchDir dir;
  EXPECT_EQ(read_shard_file(dir.path()).shard, (Shard{0, 1}));
  write_shard_file(dir.path(), {3, 5}, "subs.jsonl", "f1", 2, 10);
  EXPECT_EQ(read_shard_file(dir.path()).shard, (Shard{3, 5}));
  EXPECT_EQ(read_shard_file(dir.path()).fingerprint, "f1");
}

}  // namespace
}  // namespace keval
