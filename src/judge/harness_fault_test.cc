#include "judge/harness_fault.h"

#include <gtest/gtest.h>

#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;
using namespace test_facts;

JobOutcome ended_with(json error, int exit_code) {
  JobOutcome job;
  job.messages = {std::move(error)};
  job.exit_code = exit_code;
  return job;
}

json sandbox_failed(const std::string& message) {
  return {{"type", "error"}, {"stage", "runner"}, {"error_kind", "SandboxFailed"}, {"message", message}};
}

TEST(HarnessFaultTest, CandidateSandboxSetupFailureIsTheHarnesses) {
  EvaluationFacts facts{ended_with(sandbox_failed("PermissionError(13, 'Permission denied') on /var/tmp/c"), 3),
                        std::nullopt};
  auto fault = harness_fault(facts);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("candidate job could not set up its sandbox"), std::string::npos) << *fault;
  EXPECT_NE(fault->find("Permission denied"), std::string::npos) << *fault;
}

TEST(HarnessFaultTest, OutputsTheDiskRefusedAreTheHarnesses) {
  EvaluationFacts facts{ended_with({{"type", "error"}, {"stage", "runner"}, {"error_kind", "OutputWriteFailed"},
                                    {"message", "could not write outputs file small__float32__1.pt: "
                                                "No space left on device"}}, 3),
                        std::nullopt};
  auto fault = harness_fault(facts);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("candidate job could not save outputs in keval's work folder"), std::string::npos) << *fault;
  EXPECT_NE(fault->find("No space left on device"), std::string::npos) << *fault;
}

TEST(HarnessFaultTest, TheGuestCannotClaimAnOutputWriteFailure) {
  EvaluationFacts facts{ended_with({{"type", "error"}, {"stage", "call"}, {"error_kind", "OutputWriteFailed"},
                                    {"message", "No space left on device"}}, 3),
                        std::nullopt};
  EXPECT_FALSE(harness_fault(facts));
}

TEST(HarnessFaultTest, FailedReferenceJobIsTheHarnesses) {
  EvaluationFacts facts = facts_with({output({37}, "float32", 0)});
  facts.reference = ended_with({{"type", "error"}, {"stage", "runner"}, {"error_kind", "OSError"},
                                {"message", "open file failed\nline two"}}, 3);
  auto fault = harness_fault(facts);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("reference job failed (exit code 3): OSError open file failed"), std::string::npos) << *fault;
  EXPECT_EQ(fault->find('\n'), std::string::npos);
}

TEST(HarnessFaultTest, SubmissionsOwnCrashIsLeftToTheJudge) {
  EvaluationFacts facts{ended_with({{"type", "error"}, {"stage", "call"}, {"error_kind", "RuntimeError"},
                                    {"message", "boom"}}, 3),
                        std::nullopt};
  facts.candidate.signal = 11;
  EXPECT_FALSE(harness_fault(facts));
  EXPECT_FALSE(harness_fault(facts_with({output({37}, "float32", 5)})));
}

TEST(HarnessFaultTest, RunnerErrorOtherThanSandboxInTheCandidateIsLeftToTheJudge) {
  // The warden's own code runs after the submission's: what failed there may be the submission's doing.
  EvaluationFacts facts{ended_with({{"type", "error"}, {"stage", "runner"}, {"error_kind", "MemoryError"},
                                    {"message", ""}}, 3),
                        std::nullopt};
  EXPECT_FALSE(harness_fault(facts));
}

}  // namespace
}  // namespace keval
