// The precision policy: a float32 output whose error only lower-precision arithmetic explains
// fails, within the tolerance or not; an all-zero output fails where the reference's is not.
#include "judge/precision_check.h"

#include <gtest/gtest.h>

#include "judge/judge.h"
#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

// A float32 output within tolerance, with the precision facts the reference job measured:
// rounded TF32 and float16 inputs give the reference 2.9e-4, bfloat16 2.3e-3 (a matmul's).
json within_tolerance(json mean_rel_err, json lower = {{"tf32", 2.9e-4}, {"float16", 2.9e-4}, {"bfloat16", 2.3e-3}}) {
  json out = output({37}, "float32", 0);
  out["max_tol_ratio"] = 0.5;
  out["nan_disagree"] = 0;
  out["inf_disagree"] = 0;
  out["mean_rel_err"] = mean_rel_err;
  out["nonzero"] = 37;
  out["ref_nonzero"] = 37;
  if (!lower.is_null()) out["lower_precision_err"] = lower;
  return out;
}

Judgement judged_as(const json& out, const std::string& precision = "fp32") {
  JudgePolicy policy;
  policy.precision = precision;
  return judge(facts_with({out}), policy);
}

TEST(PrecisionCheckTest, Float32ErrorPasses) {
  EXPECT_EQ(judged_as(within_tolerance(3e-7)).verdict, Verdict::kPass);
}

TEST(PrecisionCheckTest, AnErrorLikeFloat16sFailsWithinTheTolerance) {
  Judgement j = judged_as(within_tolerance(3.1e-4));
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  ASSERT_EQ(j.reasons.size(), 1u);
  EXPECT_EQ(j.reasons[0],
            "case odd float32 seed 7: output 0: precision: output error 0.00031 (mean relative) is what "
            "lower-precision arithmetic gives (float16 0.00029, tf32 0.00029: the reference on its inputs "
            "rounded to each); this task computes in float32 (precision \"fp32\")");
}

TEST(PrecisionCheckTest, AQuarterOfTheSmallestLowerErrorIsTheLine) {
  EXPECT_EQ(judged_as(within_tolerance(0.24 * 2.9e-4)).verdict, Verdict::kPass);
  EXPECT_EQ(judged_as(within_tolerance(0.26 * 2.9e-4)).verdict, Verdict::kMismatch);
}

TEST(PrecisionCheckTest, LowerErrorsNearFloat32NoiseDecideNothing) {
  // inputs that round (almost) exactly: float16 cannot be told from float32 there
  json tiny = {{"tf32", 4e-5}, {"float16", 4e-5}, {"bfloat16", 3e-4}};
  EXPECT_EQ(judged_as(within_tolerance(3e-5, tiny)).verdict, Verdict::kPass);
}

TEST(PrecisionCheckTest, APrecisionThatOverflowsExplainsNothing) {
  // float16 overflows ("inf"): the smallest finite lower error is tf32's
  json lower = {{"tf32", 2.9e-4}, {"float16", "inf"}, {"bfloat16", 2.3e-3}};
  EXPECT_EQ(judged_as(within_tolerance(3.1e-4, lower)).verdict, Verdict::kMismatch);
  json none = {{"float16", "inf"}, {"bfloat16", nullptr}};
  EXPECT_EQ(judged_as(within_tolerance(3.1e-4, none)).verdict, Verdict::kPass);
}

TEST(PrecisionCheckTest, ATf32TaskAllowsTruncatedTf32ButNotBfloat16) {
  // tensor cores truncate float32 operands: 7.7e-4 for a matmul whose bfloat16 error is 2.3e-3
  json lower = {{"tf32_rz", 7.7e-4}, {"bfloat16", 2.3e-3}};
  EXPECT_EQ(judged_as(within_tolerance(7.8e-4, lower), "tf32").verdict, Verdict::kPass);
  EXPECT_EQ(judged_as(within_tolerance(2.9e-4, lower), "tf32").verdict, Verdict::kPass);
  Judgement j = judged_as(within_tolerance(2.4e-3, lower), "tf32");
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("(bfloat16 0.0023: the reference on its inputs rounded to each) and above 2 x "
                              "truncated TF32's (0.00077); this task computes in TF32 or better (precision \"tf32\")"),
            std::string::npos)
      << j.reasons[0];
}

TEST(PrecisionCheckTest, FactsWithoutThePrecisionFieldsAreNotChecked) {
  EXPECT_EQ(judged_as(within_tolerance(3.1e-4, nullptr)).verdict, Verdict::kPass);
  json older = output({37}, "float32", 0);  // stored before mean_rel_err and nonzero
  EXPECT_EQ(judged_as(older).verdict, Verdict::kPass);
}

TEST(PrecisionCheckTest, OutsideTheToleranceTheToleranceIsTheReason) {
  json out = within_tolerance(3.1e-4);
  out["n_over_tol"] = 3;
  out["max_tol_ratio"] = 4.0;
  Judgement j = judged_as(out);
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  ASSERT_EQ(j.reasons.size(), 1u);
  EXPECT_NE(j.reasons[0].find("3 of 37 elements outside tolerance"), std::string::npos) << j.reasons[0];
}

TEST(PrecisionCheckTest, AnErrorFarBeyondEveryLowerPrecisionStillFailsWithinTheTolerance) {
  // a loose tolerance, and an error 5x bfloat16's: no float32 computation comes near it
  Judgement j = judged_as(within_tolerance(1.2e-2));
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("precision: output error 0.012 (mean relative) is more than lower-precision "
                              "arithmetic gives (float16 0.00029, tf32 0.00029, bfloat16 0.0023:"),
            std::string::npos)
      << j.reasons[0];
}

TEST(PrecisionCheckTest, AllZeroOutputFailsWhereTheReferenceIsNot) {
  // within tolerance: the reference's values are all below atol
  json out = within_tolerance(1.0, nullptr);
  out["nonzero"] = 0;
  out["ref_nonzero"] = 12;
  Judgement j = judged_as(out);
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  ASSERT_EQ(j.reasons.size(), 1u);
  EXPECT_EQ(j.reasons[0], "case odd float32 seed 7: output 0: all 37 elements are 0 where the reference has 12 nonzero");
  out["ref_nonzero"] = 0;  // the reference is all zero too
  EXPECT_EQ(judged_as(out).verdict, Verdict::kPass);
}

TEST(PrecisionCheckTest, NanWhereTheReferenceHasNoneIsANanMismatch) {
  json out = within_tolerance(3e-7);
  out["nan"] = 2;
  out["nan_disagree"] = 2;
  EXPECT_EQ(judged_as(out).verdict, Verdict::kNanMismatch);
  out["nan"] = 0;
  out["nan_disagree"] = 0;
  out["inf"] = 1;
  out["inf_disagree"] = 1;
  EXPECT_EQ(judged_as(out).verdict, Verdict::kNanMismatch);
}

TEST(PrecisionCheckTest, OnlyFloat32CasesOfFp32AndTf32TasksAreMeasured) {
  EXPECT_EQ(measured_precisions("fp32", "float32"), (std::vector<std::string>{"tf32", "float16", "bfloat16"}));
  EXPECT_EQ(measured_precisions("tf32", "float32"), (std::vector<std::string>{"tf32_rz", "bfloat16"}));
  EXPECT_TRUE(measured_precisions("any", "float32").empty());
  EXPECT_TRUE(measured_precisions("fp32", "float16").empty());
}

TEST(PrecisionCheckTest, ThePolicyRoundTripsAndOlderPoliciesGetTheDefaults) {
  JudgePolicy policy;
  policy.precision = "tf32";
  policy.precision_thresholds.error_fraction = 0.5;
  const JudgePolicy back = JudgePolicy::from_json(policy.to_json());
  EXPECT_EQ(back.precision, "tf32");
  EXPECT_EQ(back.precision_thresholds.error_fraction, 0.5);
  const JudgePolicy older = JudgePolicy::from_json(json::object());
  EXPECT_EQ(older.precision, "fp32");
  EXPECT_EQ(older.precision_thresholds.noise_floor, 5e-5);
}

}  // namespace
}  // namespace keval
