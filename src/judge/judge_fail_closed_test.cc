// The judge fails closed: each fact it reads, and each check the runner was asked to make,
// must be there; legitimately absent facts keep their verdicts.
#include <gtest/gtest.h>

#include "judge/judge.h"
#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

bool mentions(const Judgement& j, const std::string& part) {
  for (const auto& reason : j.reasons) {
    if (reason.find(part) != std::string::npos) return true;
  }
  return false;
}

EvaluationFacts with_call(json the_call) {
  return {finished({std::move(the_call), determinism()}), finished({compare({output({37}, "float32", 0)})})};
}

TEST(JudgeTest, MissingMutationFactIsNotPass) {
  json c = call(/*mutated=*/false);
  ASSERT_EQ(judge(with_call(c), {}).verdict, Verdict::kPass);
  c.erase("inputs_mutated");
  const Judgement j = judge(with_call(c), {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "fact 'inputs_mutated' missing from call message for case odd float32 seed 7"))
      << j.reasons[0];
}

TEST(JudgeTest, EveryCallFactTheVerdictReadsIsRequired) {
  for (const char* fact : {"ok", "kernels", "other_kernels", "inputs_mutated", "output_is_input",
                           "guard_violations", "foreign_output_types", "case", "dtype", "seed"}) {
    json c = call();
    c.erase(fact);
    const Judgement j = judge(with_call(c), {});
    EXPECT_EQ(j.verdict, Verdict::kTampering) << fact;
    EXPECT_TRUE(mentions(j, "fact '" + std::string(fact) + "' missing")) << fact;
  }
}

TEST(JudgeTest, NullWhereAListIsExpectedIsNotPass) {
  json c = call();
  c["guard_violations"] = nullptr;  // read as "no violation" before
  EXPECT_EQ(judge(with_call(c), {}).verdict, Verdict::kTampering);
}

TEST(JudgeTest, MissingDeterminismVerdictFactIsNotPass) {
  json check = determinism();
  check.erase("same");
  EvaluationFacts facts{finished({call(), check}), finished({compare({output({37}, "float32", 0)})})};
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "fact 'same' missing from determinism message")) << j.reasons[0];
}

TEST(JudgeTest, SuppressedDeterminismCheckIsNotPass) {
  EvaluationFacts facts{finished({call()}), finished({compare({output({37}, "float32", 0)})})};
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "fact 'determinism' missing from the candidate job for case odd float32 seed 7"));
  JudgePolicy unchecked;
  unchecked.check_determinism = false;  // not asked for: nothing to miss
  EXPECT_EQ(judge(facts, unchecked).verdict, Verdict::kPass);
}

TEST(JudgeTest, MissingOverToleranceCountIsNotPass) {
  json out = output({37}, "float32", 0);
  out.erase("n_over_tol");
  const Judgement j = judge(facts_with({out}), {});
  EXPECT_EQ(j.verdict, Verdict::kCrash);
  EXPECT_TRUE(mentions(j, "fact 'n_over_tol' missing from output of compare message")) << j.reasons[0];
}

TEST(JudgeTest, MissingNanCountIsNotPass) {
  json out = output({37}, "float32", 0);
  out["nan"] = nullptr;
  EXPECT_NE(judge(facts_with({out}), {}).verdict, Verdict::kPass);
}

TEST(JudgeTest, ComparisonWithFewerOutputFactsThanOutputsIsNotPass) {
  EvaluationFacts facts = facts_with({});
  facts.reference->messages[0]["n_outputs"] = 1;  // one output on each side, facts for none
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kCrash);
  EXPECT_TRUE(mentions(j, "carries facts for 0 output(s), 1 expected")) << j.reasons[0];
}

TEST(JudgeTest, CallWithoutComparisonIsNotPass) {
  json second = call();
  second["seed"] = 8;
  EvaluationFacts facts{finished({call(), determinism(), second}), finished({compare({output({37}, "float32", 0)})})};
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kCrash);
  EXPECT_TRUE(mentions(j, "fact 'compare' missing from the reference job for case odd float32 seed 8"));
}

TEST(JudgeTest, MissingOwnShareIsNotPassButNullOwnShareIs) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  json profile = kernel_profile(nullptr);  // no device time at all: nothing went elsewhere
  facts.timing = finished({timing(), profile});
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kPass);
  profile.erase("own_share");
  facts.timing = finished({timing(), profile});
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "fact 'own_share' missing from kernel_profile message")) << j.reasons[0];
}

TEST(JudgeTest, MissingTimedOutputCheckCountIsNotPass) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  json sample = timing();
  sample.erase("timed_output_mismatches");
  facts.timing = finished({sample});
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kTampering);
  facts.timing = finished({timing("golden")});  // a baseline's sample has no such check
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kPass);
}

TEST(JudgeTest, MissingHostSamplesOfEventTimingIsNotPass) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  json sample = timing("candidate", "cuda_event_cold_l2");
  sample.erase("host_samples_ms");  // the side-stream check reads them
  facts.timing = finished({sample});
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kTampering);
}

TEST(JudgeTest, SuppressedTimingOfAPlannedCaseIsNotPass) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({timing()});
  JudgePolicy policy;
  policy.timed_cases = {{"odd", "float32"}};
  EXPECT_EQ(judge(facts, policy).verdict, Verdict::kPass);
  policy.timed_cases.push_back({"big", "float32"});
  const Judgement j = judge(facts, policy);
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "for case big float32")) << j.reasons[0];
}

TEST(JudgeTest, SuppressedKernelProfileIsNotPassWhereProfilesWereAskedFor) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({timing("candidate", "cuda_event_cold_l2")});
  JudgePolicy on_gpu;
  on_gpu.profile_kernels = true;
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kPass);  // CPU: no profile is asked for
  const Judgement j = judge(facts, on_gpu);
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "fact 'kernel_profile' missing from the timing job")) << j.reasons[0];
  facts.timing = finished({timing("candidate", "cuda_event_cold_l2"), kernel_profile(0.9)});
  EXPECT_EQ(judge(facts, on_gpu).verdict, Verdict::kPass);
  // a profile that failed with its own error informs only, as before
  facts.timing = finished({timing("candidate", "cuda_event_cold_l2"),
                           {{"type", "error"}, {"stage", "profile"}, {"error_kind", "RuntimeError"},
                            {"case", "odd"}, {"dtype", "float32"}, {"seed", 7}}});
  EXPECT_EQ(judge(facts, on_gpu).verdict, Verdict::kPass);
}

TEST(JudgeTest, SanitizerJobWithoutMemcheckReportIsNotPass) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.sanitizer = finished({call()});
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kCrash);
  facts.sanitizer->messages.push_back({{"type", "memcheck"}, {"summary_found", true}, {"errors", 0}});
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kPass);
  facts.sanitizer->messages.back().erase("errors");
  EXPECT_NE(judge(facts, {}).verdict, Verdict::kPass);
}

TEST(JudgeTest, FailedCallKeepsItsVerdictWithoutItsChecks) {
  // a call that raised: no outputs, no re-run, the reference found nothing saved
  json failed = call();
  failed["ok"] = false;
  failed["n_outputs"] = nullptr;
  json error = {{"type", "error"}, {"stage", "call"}, {"error_kind", "ValueError"}, {"message", "bad"},
                {"case", "odd"}, {"dtype", "float32"}, {"seed", 7}};
  EvaluationFacts facts{finished({error, failed}), std::nullopt};
  EXPECT_EQ(judge(facts, {}).verdict, Verdict::kRuntimeError);
}

TEST(JudgeTest, NoTimingJobIsNotAMissingFact) {
  JudgePolicy policy;
  policy.timed_cases = {{"odd", "float32"}};  // planned, but --no-timing ran no timing job
  policy.profile_kernels = true;
  EXPECT_EQ(judge(facts_with({output({37}, "float32", 0)}), policy).verdict, Verdict::kPass);
}

TEST(JudgeTest, CodeReachingTheRunnerIsTamperingNamingConstructAndLine) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.harness_reach = {{"gc.get_objects", "gc object walk", 12, true}};
  const Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "gc.get_objects (gc object walk) at line 12")) << j.reasons[0];
  EvaluationFacts again = EvaluationFacts::from_json(json::parse(facts.to_json().dump()));
  EXPECT_EQ(judge(again, {}).verdict, Verdict::kTampering);  // stored facts re-judge the same
}

TEST(JudgeTest, AMessageTheProtocolLacksIsNotPass) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.candidate.messages.insert(facts.candidate.messages.begin(), json{{"type", "turn"}});
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_TRUE(mentions(j, "message type 'turn' is not in the protocol")) << j.reasons[0];
  facts = facts_with({output({37}, "float32", 0)});
  facts.reference->messages.push_back({{"type", "compare"}, {"case", 7}});
  j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kCrash);  // the reference job never loads the submission: keval's fault
  EXPECT_TRUE(mentions(j, "harness: the reference job's fact 'case' of compare message is number")) << j.reasons[0];
}

TEST(JudgeTest, MistypedFactsOfAnyMessageAreNotPass) {
  for (json message : {json{{"type", "error"}, {"stage", 3}, {"error_kind", "X"}},
                       json{{"type", "tampering"}, {"stage", "call"}, {"names", "torch.equal"}},
                       json{{"type", "kernel_profile"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7},
                            {"own_share", 0.9}, {"kernels", {{{"name", "k"}, {"own", "yes"}}}}},
                       json{{"type", "done"}, {"phases", "fast"}}}) {
    EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
    facts.candidate.messages.insert(facts.candidate.messages.begin(), message);
    EXPECT_EQ(judge(facts, {}).verdict, Verdict::kTampering) << message.dump();
  }
}

}  // namespace
}  // namespace keval
