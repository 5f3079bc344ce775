// The judge applies the tolerance itself from the reference job's per-output statistics, at the
// task's tolerance or a scaled one, and falls back to the counts for facts stored without them.
#include <gtest/gtest.h>

#include <limits>

#include "judge/judge.h"
#include "judge/judge_test_facts.h"
#include "judge/tolerance_check.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

// An output as the runner sends it now: the count and the statistics it came from.
json measured(json ratio, long long over, long long nan_disagree = 0, long long inf_disagree = 0) {
  json out = output({37}, "float32", over);
  out["max_tol_ratio"] = ratio;
  out["nan_disagree"] = nan_disagree;
  out["inf_disagree"] = inf_disagree;
  out["atol"] = 1e-5;
  out["rtol"] = 1e-5;
  return out;
}

Judgement judged(const json& out, double scale = 1) {
  JudgePolicy policy;
  policy.tolerance_scale = scale;
  return judge(facts_with({out}), policy);
}

TEST(JudgeToleranceTest, RatioExactlyOneIsWithinAndTheNextDoubleIsNot) {
  EXPECT_EQ(judged(measured(1.0, 0)).verdict, Verdict::kPass);
  EXPECT_EQ(judged(measured(std::nextafter(1.0, 2.0), 1)).verdict, Verdict::kMismatch);
}

TEST(JudgeToleranceTest, AtScaleOneTheReasonIsTheCountsAsBefore) {
  Judgement j = judged(measured(3.0, 5));
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("5 of 37 elements outside tolerance"), std::string::npos) << j.reasons[0];
}

TEST(JudgeToleranceTest, AScaleAboveTheRatioPassesAndOneBelowItFails) {
  EXPECT_EQ(judged(measured(3.0, 5), 3.0).verdict, Verdict::kPass);  // ratio exactly the scale: within
  EXPECT_EQ(judged(measured(3.0, 5), 4.0).verdict, Verdict::kPass);
  Judgement j = judged(measured(0.8, 0), 0.5);
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("values outside 0.5 x the task tolerance: the largest |diff| is 0.8 x the task "
                              "tolerance (allowed |diff| <= 5e-06 + 5e-06 x |expected|)"),
            std::string::npos) << j.reasons[0];
}

TEST(JudgeToleranceTest, NanOrInfDisagreementFailsAtAnyScale) {
  Judgement nan = judged(measured(0.0, 1, 1, 0), 1e6);  // a finite value where the reference has NaN
  ASSERT_EQ(nan.verdict, Verdict::kMismatch);
  EXPECT_NE(nan.reasons[0].find("1 of 37 NaN/Inf positions differ"), std::string::npos) << nan.reasons[0];
  EXPECT_EQ(judged(measured(0.0, 1, 0, 1), 1e6).verdict, Verdict::kMismatch);  // -Inf against +Inf
  EXPECT_EQ(judged(measured(0.0, 1, 1, 0)).verdict, Verdict::kMismatch);
}

TEST(JudgeToleranceTest, ADifferenceUnderZeroToleranceFailsAtAnyScale) {
  EXPECT_EQ(judged(measured("inf", 1), 1e300).verdict, Verdict::kMismatch);
}

TEST(JudgeToleranceTest, NoFinitePairLeavesOnlyTheDisagreementsToJudge) {
  EXPECT_EQ(judged(measured(nullptr, 0)).verdict, Verdict::kPass);
}

TEST(JudgeToleranceTest, NanWhereTheReferenceHasNoneIsStillNanMismatch) {
  json out = measured(0.0, 1, 1, 0);
  out["nan"] = 1;
  EXPECT_EQ(judged(out, 1e6).verdict, Verdict::kNanMismatch);
}

TEST(JudgeToleranceTest, FactsWithoutStatisticsFallBackToTheCountAtAnyScale) {
  EXPECT_EQ(judged(output({37}, "float32", 0), 0.01).verdict, Verdict::kPass);
  Judgement j = judged(output({37}, "float32", 2), 100);
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("judged at the task's own tolerance"), std::string::npos) << j.reasons[0];
  const Judgement as_run = judged(output({37}, "float32", 2));  // scale 1: the reason as it always was
  EXPECT_EQ(as_run.reasons[0].find("stored without"), std::string::npos) << as_run.reasons[0];
}

TEST(JudgeToleranceTest, PartOfTheStatisticsOrAMistypedRatioIsNotPass) {
  json partial = measured(0.5, 0);
  partial.erase("inf_disagree");
  Judgement j = judged(partial);
  EXPECT_EQ(j.verdict, Verdict::kCrash);  // the reference job's facts: a harness fault
  EXPECT_NE(j.reasons[0].find("fact 'inf_disagree' missing"), std::string::npos) << j.reasons[0];
  EXPECT_EQ(judged(measured("nan", 0)).verdict, Verdict::kCrash);
  EXPECT_EQ(judged(measured(-1.0, 0)).verdict, Verdict::kCrash);
}

TEST(JudgeToleranceTest, TheCheckReadsInfAsInfinity) {
  const EvaluationFacts facts = facts_with({measured("inf", 1)});
  const auto compares = facts.reference->messages_of<CompareMessage>();
  ASSERT_EQ(compares.size(), 1u);
  const ToleranceCheck check = check_tolerance(compares[0].outputs.at(0), 2);
  EXPECT_TRUE(check.outside && check.from_statistics);
  EXPECT_EQ(check.max_ratio, std::numeric_limits<double>::infinity());
}

TEST(JudgePolicyTest, SurvivesJsonRoundTripAndOldPoliciesKeepDefaults) {
  JudgePolicy policy{true, false};
  policy.timed_cases = {{"odd", "float32"}};
  policy.tolerance_scale = 2.5;
  policy.check_determinism = false;
  policy.check_hidden_work = false;
  const JudgePolicy back = JudgePolicy::from_json(policy.to_json());
  EXPECT_EQ(back.to_json(), policy.to_json());
  EXPECT_EQ(JudgePolicy::from_json(json::object()).to_json(), JudgePolicy{}.to_json());
}

}  // namespace
}  // namespace keval
