#include "engine/results/rejudge.h"

#include <gtest/gtest.h>

#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using namespace test_facts;

EvaluationFacts facts_at_ratio(double ratio) {
  nlohmann::json out = output({37}, "float32", ratio > 1 ? 3 : 0);
  out["max_tol_ratio"] = ratio;
  out["nan_disagree"] = 0;
  out["inf_disagree"] = 0;
  return facts_with({out});
}

SubmissionResult timed_pass() {
  SubmissionResult r;
  r.judgement = {Verdict::kPass, {}};
  r.set_call(true);
  r.speedup = 1.5;
  r.speedup_ci_low = 1.4;
  r.speedup_ci_high = 1.6;
  CaseResult c{"odd", "float32"};
  c.speedup = 1.5;
  c.time_ms = 2.0;
  r.cases.push_back(c);
  return r;
}

TEST(RejudgeTest, APassThatFailsUnderAFinerToleranceLosesItsSpeedupsButNotItsTimes) {
  JudgePolicy policy;
  policy.tolerance_scale = 0.5;
  const SubmissionResult again = rejudged_result(timed_pass(), facts_at_ratio(0.8), policy);
  EXPECT_EQ(again.judgement.verdict, Verdict::kMismatch);
  EXPECT_TRUE(again.call());
  EXPECT_FALSE(again.speedup || again.speedup_ci_low || again.cases[0].speedup);
  EXPECT_EQ(again.cases[0].time_ms, 2.0);
  // the call's own line is judged again under the same policy
  ASSERT_TRUE(again.case_checks);
  ASSERT_EQ(again.case_checks->size(), 1u);
  EXPECT_EQ(again.case_checks->front().result, "mismatch");
}

TEST(RejudgeTest, APassThatStaysAPassKeepsItsSpeedup) {
  const SubmissionResult again = rejudged_result(timed_pass(), facts_at_ratio(0.8), JudgePolicy{});
  EXPECT_EQ(again.judgement.verdict, Verdict::kPass);
  EXPECT_EQ(again.speedup, 1.5);
}

TEST(RejudgeTest, TheDefaultFolderNamesTheScaleInFull) {
  EXPECT_EQ(rejudge_folder_name(2), "rejudged-x2");
  EXPECT_EQ(rejudge_folder_name(0.5), "rejudged-x0.5");
  EXPECT_EQ(rejudge_folder_name(1.0000001), "rejudged-x1.0000001");
}

}  // namespace
}  // namespace keval
