#include "cli/mutant_timeout.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

SubmissionResult golden(const std::string& task, Verdict verdict, nlohmann::json job_seconds) {
  SubmissionResult result;
  result.task = task;
  result.judgement.verdict = verdict;
  result.job_seconds = std::move(job_seconds);
  return result;
}

TEST(MutantTimeoutTest, TwentyTimesTheGoldensJobNeverUnderThirtySeconds) {
  EXPECT_EQ(mutant_timeout_s(0.4), 30);
  EXPECT_EQ(mutant_timeout_s(1.5), 30);
  EXPECT_EQ(mutant_timeout_s(1.51), 31);  // whole seconds, rounded up
  EXPECT_EQ(mutant_timeout_s(12.0), 240);
}

TEST(MutantTimeoutTest, EachTaskFollowsItsGoldensLongestJob) {
  const auto timeouts = mutant_timeouts({
      golden("fast", Verdict::kPass, {{"candidate", {{"wall_s", 0.8}}}, {"reference", {{"wall_s", 0.5}}}}),
      golden("slow", Verdict::kMismatch, {{"candidate", {{"wall_s", 3.0}}}, {"reference", {{"wall_s", 4.2}}}}),
      golden("hung", Verdict::kTimeout, {{"candidate", {{"wall_s", 600.0}}}}),  // its task keeps the run's
      golden("unjudged", Verdict::kPass, nlohmann::json::object()),
  });
  EXPECT_EQ(timeouts, (std::map<std::string, int>{{"fast", 30}, {"slow", 84}}));
}

}  // namespace
}  // namespace keval
