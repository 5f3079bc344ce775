#include "engine/resume/earlier_results.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

nlohmann::json result_line(const std::string& id, const std::string& task, Verdict verdict) {
  SubmissionResult result;
  result.id = id;
  result.task = task;
  result.judgement.verdict = verdict;
  return result.to_json();
}

TEST(EarlierResultsTest, KeepsTheTasksThisRunDoesNotCoverInFileOrder) {
  ScratchDir dir;
  std::ofstream(dir.path() / "results.jsonl") << result_line("a", "relu", Verdict::kPass).dump() << "\n"
                                              << result_line("b", "softmax", Verdict::kMismatch).dump() << "\n"
                                              << "{\"cut short\n"
                                              << result_line("c", "row_sum", Verdict::kCrash).dump() << "\n";
  const auto kept = earlier_results_outside(dir.path() / "results.jsonl", {"softmax"});
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].id, "a");
  EXPECT_EQ(kept[0].judgement.verdict, Verdict::kPass);
  EXPECT_EQ(kept[1].task, "row_sum");
}

TEST(EarlierResultsTest, NoEarlierFileKeepsNothing) {
  ScratchDir dir;
  EXPECT_TRUE(earlier_results_outside(dir.path() / "results.jsonl", {}).empty());
}

}  // namespace
}  // namespace keval
