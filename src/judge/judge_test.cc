#include "judge/judge.h"

#include <gtest/gtest.h>

#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

Verdict verdict_of(const EvaluationFacts& facts, bool inplace = false) {
  return judge(facts, JudgePolicy{inplace}).verdict;
}

TEST(JudgeTest, PassesWhenEveryOutputIsWithinTolerance) {
  EXPECT_EQ(verdict_of(facts_with({output({37}, "float32", 0)})), Verdict::kPass);
}

TEST(JudgeTest, ShapeBeatsDtypeBeatsValues) {
  EXPECT_EQ(verdict_of(facts_with({output({36}, "float16", 5)})), Verdict::kWrongShape);
  EXPECT_EQ(verdict_of(facts_with({output({37}, "float16", 5)})), Verdict::kWrongDtype);
  EXPECT_EQ(verdict_of(facts_with({output({37}, "float32", 5)})), Verdict::kMismatch);
  EXPECT_EQ(verdict_of(facts_with({output({37}, "float32", 5, 3)})), Verdict::kNanMismatch);
}

TEST(JudgeTest, MismatchReasonNamesCaseAndCounts) {
  Judgement j = judge(facts_with({output({37}, "float32", 5)}), {});
  ASSERT_FALSE(j.reasons.empty());
  EXPECT_NE(j.reasons[0].find("case odd float32 seed 7"), std::string::npos) << j.reasons[0];
  EXPECT_NE(j.reasons[0].find("5 of 37 elements"), std::string::npos) << j.reasons[0];
}

TEST(JudgeTest, ReasonNamesTheFirstBadElementItsValuesAndTheTolerance) {
  json out = output({37}, "float32", 1);
  out["first_bad"] = {{"flat_index", 36}, {"position", {36}}, {"actual", 2.5}, {"expected", 1.0}};
  json close = out;
  close["first_bad"]["actual"] = 0.5792141;
  close["first_bad"]["expected"] = 0.5790001;
  EXPECT_NE(judge(facts_with({close}), {}).reasons[0].find("got 0.5792141, expected 0.5790001 (diff 0.000214)"),
            std::string::npos);
  out["atol"] = 1e-5;
  out["rtol"] = 1e-5;
  Judgement j = judge(facts_with({out}), {});
  ASSERT_EQ(j.verdict, Verdict::kMismatch);
  EXPECT_NE(j.reasons[0].find("1 of 37 elements outside tolerance; first at [36] (element 36 of 37): got 2.5, "
                              "expected 1 (diff 1.5), allowed |diff| <= 1e-05 + 1e-05 x |expected|"),
            std::string::npos) << j.reasons[0];
  EXPECT_EQ(j.reasons[0].find("max rel err"), std::string::npos) << "a relative error against 0 reads as 1.7e+308";
}

TEST(JudgeTest, TheDecidingVerdictsReasonComesFirst) {
  json mismatched = output({37}, "float32", 1);
  json with_nan = output({37}, "float32", 1, 1);
  with_nan["index"] = 1;
  with_nan["first_bad"] = {{"flat_index", 3}, {"position", {3}}, {"actual", "nan"}, {"expected", 0.5}};
  EvaluationFacts facts = facts_with({mismatched, with_nan});
  for (json& message : facts.reference->messages) {
    if (message["type"] == "compare") message["ref_n_outputs"] = 2;
  }
  Judgement j = judge(facts, {});
  ASSERT_EQ(j.verdict, Verdict::kNanMismatch) << j.reasons[0];
  ASSERT_EQ(j.reasons.size(), 2u);
  EXPECT_NE(j.reasons[0].find("output 1: 1 NaN"), std::string::npos) << j.reasons[0];
  EXPECT_NE(j.reasons[0].find("got nan, expected 0.5"), std::string::npos) << j.reasons[0];
}

TEST(JudgeTest, ImportSyntaxErrorIsCompileErrorWithLine) {
  EvaluationFacts facts{finished({{{"type", "error"}, {"stage", "import"},
                                   {"error_kind", "SyntaxError"}, {"message", "invalid syntax"},
                                   {"line", 12}}}), std::nullopt};
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kCompileError);
  EXPECT_NE(j.reasons[0].find("line 12"), std::string::npos);
}

TEST(JudgeTest, ImportExceptionIsRuntimeError) {
  EvaluationFacts facts{finished({{{"type", "error"}, {"stage", "import"},
                                   {"error_kind", "NameError"}, {"message", "x"}}}), std::nullopt};
  EXPECT_EQ(verdict_of(facts), Verdict::kRuntimeError);
}

TEST(JudgeTest, MissingEntryIsReported) {
  EvaluationFacts facts{finished({{{"type", "error"}, {"stage", "entry"},
                                   {"error_kind", "MissingEntry"}, {"message", "no softmax"}}}),
                        std::nullopt};
  EXPECT_EQ(verdict_of(facts), Verdict::kMissingEntry);
}

TEST(JudgeTest, TritonCompilationErrorDuringCallIsCompileError) {
  EvaluationFacts facts{finished({{{"type", "error"}, {"stage", "call"},
                                   {"error_kind", "CompilationError"}, {"message", "bad"}}}),
                        std::nullopt};
  EXPECT_EQ(verdict_of(facts), Verdict::kCompileError);
}

TEST(JudgeTest, TheInterpretersBoundsCheckDuringACallIsOutOfBounds) {
  EvaluationFacts facts{finished({{{"type", "error"}, {"stage", "call"}, {"error_kind", "OutOfBounds"},
                                   {"message", "kernel _add: store of 1 lane(s) out of bounds"}, {"line", 17}}}),
                        std::nullopt};
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kOutOfBounds);
  ASSERT_FALSE(j.reasons.empty());
  EXPECT_NE(j.reasons[0].find("line 17: kernel _add: store of 1 lane(s) out of bounds"), std::string::npos)
      << j.reasons[0];
}

TEST(JudgeTest, ExitWithoutDoneIsCrashEvenWithCodeZero) {
  JobOutcome job;
  job.messages = {call()};
  job.exit_code = 0;
  EXPECT_EQ(verdict_of({job, std::nullopt}), Verdict::kCrash);
}

TEST(JudgeTest, CrashReasonCarriesTheFirstErrorTheProcessReported) {
  JobOutcome job;
  job.messages = {{{"type", "error"}, {"stage", "device"}, {"error_kind", "DeviceLost"},
                   {"message", "CUDA context lost after a failed call: illegal memory access"}}};
  job.exit_code = 4;
  const Judgement j = judge({job, std::nullopt}, JudgePolicy{false});
  EXPECT_EQ(j.verdict, Verdict::kCrash);
  ASSERT_FALSE(j.reasons.empty());
  EXPECT_NE(j.reasons[0].find("exit code 4"), std::string::npos) << j.reasons[0];
  EXPECT_NE(j.reasons[0].find("illegal memory access"), std::string::npos) << j.reasons[0];
}

TEST(JudgeTest, ARerunThatDiffersOnlyWhereTheReferenceIsUndefinedIsNotNondeterminism) {
  json differs = determinism(false);
  json checked = compare({output({37}, "float32", 0)});
  checked["rerun_differs_where_defined"] = false;
  EXPECT_EQ(verdict_of({finished({call(), differs}), finished({checked})}), Verdict::kPass);
  checked["rerun_differs_where_defined"] = true;
  EXPECT_EQ(verdict_of({finished({call(), differs}), finished({checked})}), Verdict::kNondeterministic);
  EXPECT_EQ(verdict_of({finished({call(), differs}), finished({compare({output({37}, "float32", 0)})})}),
            Verdict::kNondeterministic);  // no re-check: the difference stands
}

TEST(JudgeTest, KilledAtDeadlineIsTimeout) {
  JobOutcome job;
  job.timed_out = true;
  job.signal = 9;
  EXPECT_EQ(verdict_of({job, std::nullopt}), Verdict::kTimeout);
}

TEST(JudgeTest, MutatedInputsFailUnlessTaskIsInplace) {
  EvaluationFacts facts{finished({call(true), determinism()}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_EQ(verdict_of(facts), Verdict::kInputMutated);
  EXPECT_EQ(verdict_of(facts, /*inplace=*/true), Verdict::kPass);
}

TEST(JudgeTest, NoOwnKernelIsNoKernel) {
  EvaluationFacts facts{finished({call(false, {})}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_EQ(verdict_of(facts), Verdict::kNoKernel);
}

TEST(JudgeTest, DifferentRepeatsAreNondeterministic) {
  EvaluationFacts facts{finished({call(), determinism(false)}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_EQ(verdict_of(facts), Verdict::kNondeterministic);
}

TEST(JudgeTest, FactsSurviveJsonRoundTrip) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 5)});
  EvaluationFacts again = EvaluationFacts::from_json(json::parse(facts.to_json().dump()));
  EXPECT_EQ(verdict_of(again), Verdict::kMismatch);
}

}  // namespace
}  // namespace keval

namespace keval {
namespace {

TEST(JudgeIntegrityTest, PatchedFunctionIsTampering) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.candidate.messages.insert(facts.candidate.messages.begin(),
                                  json{{"type", "tampering"}, {"stage", "import"},
                                       {"names", {"torch.allclose"}}});
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_NE(j.reasons[0].find("torch.allclose"), std::string::npos);
}

TEST(JudgeIntegrityTest, GuardBandWriteIsOutOfBounds) {
  json c = call();
  c["guard_violations"] = {0};
  EvaluationFacts facts{finished({c, determinism()}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_EQ(verdict_of(facts), Verdict::kOutOfBounds);
}

TEST(JudgeIntegrityTest, DroppedGuardBandsPassWithTheUncheckedBoundsSaid) {
  json c = call();
  c["guard_bands_dropped"] = "could not be allocated: OutOfMemoryError()";
  EvaluationFacts facts{finished({c, determinism()}), finished({compare({output({37}, "float32", 0)})})};
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kPass);
  ASSERT_EQ(j.reasons.size(), 1u);
  EXPECT_NE(j.reasons[0].find("no guard bands (could not be allocated"), std::string::npos) << j.reasons[0];
  EXPECT_TRUE(judge(facts_with({output({37}, "float32", 0)}), {}).reasons.empty());
}

TEST(JudgeIntegrityTest, GuardBandsDroppedOfTheWrongTypeFailsClosed) {
  json c = call();
  c["guard_bands_dropped"] = true;
  EvaluationFacts facts{finished({c, determinism()}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_NE(judge(facts, {}).verdict, Verdict::kPass);
}

TEST(JudgeIntegrityTest, TensorSubclassOutputIsTampering) {
  json c = call();
  c["foreign_output_types"] = {"LazyTensor"};
  EvaluationFacts facts{finished({c, determinism()}), finished({compare({output({37}, "float32", 0)})})};
  EXPECT_EQ(verdict_of(facts), Verdict::kTampering);
}

TEST(JudgeIntegrityTest, ReplayedTimedOutputsAreTampering) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  json replayed = timing();
  replayed["timed_output_mismatches"] = 2;
  facts.timing = finished({replayed});
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_NE(j.reasons[0].find("2 of 5 timed calls"), std::string::npos) << j.reasons[0];
}

TEST(JudgeIntegrityTest, SideStreamWorkShowsAsHostEventGap) {
  json sample = timing("candidate", "cuda_event_cold_l2");
  sample["samples_ms"] = {0.01, 0.01, 0.01};
  sample["host_samples_ms"] = {1.2, 1.1, 1.3};
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({sample});
  EXPECT_EQ(verdict_of(facts), Verdict::kTampering);
  sample["host_samples_ms"] = {0.03, 0.04, 0.03};  // launch overhead only: fine
  facts.timing = finished({sample});
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
}

TEST(JudgeIntegrityTest, AHostEventGapTheBaselinesShareIsNotTampering) {
  json candidate = timing("candidate", "cuda_event_cold_l2");
  candidate["samples_ms"] = {0.259, 0.259, 0.26};
  candidate["host_samples_ms"] = {0.539, 0.54, 0.538};
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({candidate});
  EXPECT_EQ(verdict_of(facts), Verdict::kTampering);
  json golden = timing("golden", "cuda_event_cold_l2");
  golden["samples_ms"] = {0.26, 0.261, 0.26};
  golden["host_samples_ms"] = {0.53, 0.535, 0.531};
  facts.timing = finished({candidate, golden});
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
  golden["case"] = "large";  // a baseline of another case says nothing of this one
  facts.timing = finished({candidate, golden});
  EXPECT_EQ(verdict_of(facts), Verdict::kTampering);
}

TEST(JudgeIntegrityTest, KevalsOwnVariantsSkipTheHostEventGapCheck) {
  json sample = timing("candidate", "cuda_event_cold_l2");
  sample["samples_ms"] = {0.01, 0.01, 0.01};
  sample["host_samples_ms"] = {1.2, 1.1, 1.3};
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({sample});
  JudgePolicy trusted;
  trusted.check_hidden_work = false;
  EXPECT_EQ(judge(facts, trusted).verdict, Verdict::kPass);
}

TEST(JudgeIntegrityTest, SettingL2AsideForPersistingLinesIsTampering) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({timing("candidate", "cuda_event_cold_l2")});
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
  (*facts.timing).messages[0]["l2_persisting_bytes"] = 4 << 20;
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_NE(j.reasons[0].find("persisting"), std::string::npos);
  facts.timing = finished({timing("golden", "cuda_event_cold_l2")});  // a baseline's figure is never the submission's
  facts.timing->messages[0]["l2_persisting_bytes"] = 4 << 20;
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
}

TEST(JudgeIntegrityTest, TorchDoingTheWorkIsLibraryFallback) {
  json profile = kernel_profile(0.1, {{{"name", "add_kernel"}, {"own", true}, {"time_us", 1}},
                                      {{"name", "ampere_sgemm"}, {"own", false}, {"time_us", 9}}});
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.candidate.messages.insert(facts.candidate.messages.begin(), profile);
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kLibraryFallback);
  EXPECT_NE(j.reasons[0].find("ampere_sgemm"), std::string::npos);
}

TEST(JudgeIntegrityTest, OutputsUnchangedWithOwnKernelsSuppressedIsLibraryFallback) {
  // a busy own kernel beside torch's work: its share looks large, the ablation shows it idle
  json ablation = {{"type", "ablation"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 1},
                   {"outputs_unchanged", false}, {"suppressed", {"spin_kernel"}}};
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.timing = finished({ablation});
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
  (*facts.timing).messages[0]["outputs_unchanged"] = true;
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kLibraryFallback);
  EXPECT_NE(j.reasons[0].find("spin_kernel"), std::string::npos);
  EXPECT_EQ(judge(facts, JudgePolicy{false, false}).verdict, Verdict::kPass);  // any code may
}

TEST(JudgeIntegrityTest, LibraryKernelsPassWhereAnyCodeMayDoTheWork) {
  // KernelBench's any-code tasks: cuBLAS doing the work is allowed, in the timing job too
  // (where the H200 first showed library_fallback for KernelBench references)
  json profile = kernel_profile(0.0, {{{"name", "sm90_xmma_gemm"}, {"own", false}, {"time_us", 9}}});
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  JobOutcome timing = finished({profile});
  facts.timing = timing;
  EXPECT_EQ(judge(facts, JudgePolicy{false, true}).verdict, Verdict::kLibraryFallback);
  EXPECT_EQ(judge(facts, JudgePolicy{false, false}).verdict, Verdict::kPass);
}

}  // namespace
}  // namespace keval

namespace keval {
namespace {

TEST(JudgeRobustnessTest, NullProfileShareIsNotFatal) {
  json profile = kernel_profile(nullptr);
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.candidate.messages.insert(facts.candidate.messages.begin(), profile);
  EXPECT_EQ(verdict_of(facts), Verdict::kPass);
}

TEST(JudgeRobustnessTest, MistypedFactIsTamperingNamingTheFactNotAnException) {
  json bad = call();
  bad["inputs_mutated"] = "yes";
  EvaluationFacts facts{finished({bad, determinism()}), finished({compare({output({37}, "float32", 0)})})};
  Judgement j = judge(facts, {});
  EXPECT_EQ(j.verdict, Verdict::kTampering);
  EXPECT_NE(j.reasons[0].find("fact 'inputs_mutated' of call message for case odd float32 seed 7 is string"),
            std::string::npos) << j.reasons[0];
}

TEST(JudgeRobustnessTest, GuardViolationOutranksTheCrashItCaused) {
  json c = call();
  c["guard_violations"] = {0};
  JobOutcome job;
  job.messages = {c};
  job.signal = 6;  // the corrupted heap aborted the job before `done`
  EXPECT_EQ(verdict_of({job, std::nullopt}), Verdict::kOutOfBounds);
}

}  // namespace
}  // namespace keval
