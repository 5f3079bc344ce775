#include "judge/case_checks.h"

#include <gtest/gtest.h>

#include "judge/judge.h"
#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

json at(json message, const std::string& name, long long seed) {
  message["case"] = name;
  message["seed"] = seed;
  return message;
}

// Three calls, "odd" seeds 7 and 8 and "wide" seed 7; only odd seed 8's output is off.
EvaluationFacts one_call_wrong() {
  json wrong = output({37}, "float32", 5);
  wrong["max_abs_err"] = 2.5;
  wrong["first_bad"] = {{"flat_index", 3}, {"position", {3}}, {"actual", 3.5}, {"expected", 1.0}};
  json right = output({37}, "float32", 0);
  right["max_abs_err"] = 0.0;
  return {finished({at(call(), "odd", 7), at(call(), "odd", 8), at(call(), "wide", 7)}),
          finished({at(compare({right}), "odd", 7), at(compare({wrong}), "odd", 8), at(compare({right}), "wide", 7)})};
}

json call_error(const std::string& kind, const std::string& name, long long seed) {
  return {{"type", "error"}, {"stage", "call"}, {"error_kind", kind}, {"error_class", kind},
          {"message", "boom"}, {"case", name}, {"dtype", "float32"}, {"seed", seed}};
}

TEST(CaseChecksTest, NamesTheOneCallWhoseOutputsAreWrongAndPassesTheOthers) {
  const EvaluationFacts facts = one_call_wrong();
  const std::vector<CaseCheck> checks = check_cases(facts, {});
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].case_name, "odd");
  EXPECT_EQ(checks[0].seed, 7);
  EXPECT_EQ(checks[0].result, "pass");
  EXPECT_EQ(checks[0].reason, "");
  EXPECT_EQ(checks[1].result, "mismatch");
  EXPECT_EQ(checks[1].max_abs_err, 2.5);
  EXPECT_EQ(checks[1].shapes, json::array({json::array({37})}));
  // the line names its call itself; the reason is the judge's, without the place
  EXPECT_EQ(checks[1].reason.rfind("output 0: 5 of 37 elements outside tolerance; first at [3]", 0), 0u)
      << checks[1].reason;
  EXPECT_EQ(checks[2].case_name, "wide");
  EXPECT_TRUE(checks[2].passed());
  // the same facts fail the verdict for the same call
  EXPECT_NE(judge(facts, {}).reasons[0].find("case odd float32 seed 8"), std::string::npos);
}

TEST(CaseChecksTest, ACallThatRaisedFailsWithItsErrorsVerdictAndHasNoComparison) {
  json failed = at(call(), "wide", 7);
  failed["ok"] = false;
  EvaluationFacts facts{finished({at(call(), "odd", 7), call_error("IndexError", "wide", 7), failed}),
                        finished({at(compare({output({37}, "float32", 0)}), "odd", 7)})};
  const std::vector<CaseCheck> checks = check_cases(facts, {});
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].result, "pass");
  EXPECT_EQ(checks[1].result, "runtime_error");
  EXPECT_EQ(checks[1].reason, "IndexError: boom");
  EXPECT_TRUE(checks[1].shapes.is_null());
  EXPECT_FALSE(checks[1].max_abs_err);
}

TEST(CaseChecksTest, ACallThatChangedItsInputsFailsUnlessTheTaskAllowsIt) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.candidate = finished({call(/*mutated=*/true)});
  EXPECT_EQ(check_cases(facts, JudgePolicy{false}).at(0).result, "input_mutated");
  EXPECT_EQ(check_cases(facts, JudgePolicy{true}).at(0).result, "pass");
}

TEST(CaseChecksTest, ACallWhoseOutputsWereNeverComparedIsUncheckedNotPassed) {
  EvaluationFacts facts{finished({call()}), std::nullopt};
  const std::vector<CaseCheck> checks = check_cases(facts, {});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].result, "unchecked");
  EXPECT_FALSE(checks[0].passed());
}

TEST(CaseChecksTest, AScaledToleranceJudgesEachCallAsTheVerdictDoes) {
  json out = output({37}, "float32", 0);
  out["max_tol_ratio"] = 0.8;
  out["nan_disagree"] = 0;
  out["inf_disagree"] = 0;
  JudgePolicy finer;
  finer.tolerance_scale = 0.5;
  EXPECT_EQ(check_cases(facts_with({out}), {}).at(0).result, "pass");
  EXPECT_EQ(check_cases(facts_with({out}), finer).at(0).result, "mismatch");
}

TEST(CaseChecksTest, ReadsBackWhatItWrites) {
  const CaseCheck check = check_cases(one_call_wrong(), {}).at(1);
  const CaseCheck back = CaseCheck::from_json(json::parse(check.to_json().dump()));
  EXPECT_EQ(back.to_json(), check.to_json());
  EXPECT_EQ(check.to_json()["result"], "mismatch");
  EXPECT_TRUE(check_cases(one_call_wrong(), {}).at(0).to_json()["reason"].is_null());
}

}  // namespace
}  // namespace keval
