#include "engine/jobs/variant_batch.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <map>

#include "judge/judge.h"

namespace keval {
namespace {

using nlohmann::json;

Task one_case_task() {
  Task task;
  task.name = "t";
  task.entry = "t";
  task.dtypes = {"float32"};
  task.tolerance["float32"] = {0, 0, "exact"};
  task.cases.push_back({"c", true, json{{"n", 4}}, {{"n", 4}}, {}});
  task.dir = "/nonexistent";
  return task;
}

json tagged(size_t variant, json message) {
  message["variant"] = variant;
  return message;
}

// What a sweep job sends for a variant whose call ran and matched (or not) the reference.
std::vector<json> variant_messages(size_t variant, long long over) {
  const json where = {{"case", "c"}, {"dtype", "float32"}, {"seed", 1}};
  json call = where, compare = where;
  call.update({{"type", "call"}, {"ok", true}, {"kernels", {"k"}}, {"other_kernels", json::array()},
               {"inputs_mutated", false}, {"output_is_input", false}, {"guard_violations", json::array()},
               {"foreign_output_types", json::array()}});
  compare.update({{"type", "compare"}, {"missing", false}, {"n_outputs", 1}, {"ref_n_outputs", 1},
                  {"outputs", {{{"index", 0}, {"shape", {4}}, {"ref_shape", {4}}, {"dtype", "float32"},
                                {"ref_dtype", "float32"}, {"numel", 4}, {"n_over_tol", over}, {"nan", 0},
                                {"inf", 0}, {"ref_nan", 0}, {"ref_inf", 0}, {"max_abs_err", 1.0},
                                {"max_rel_err", 1.0}}}}});
  return {tagged(variant, call), tagged(variant, compare), tagged(variant, {{"type", "variant_done"}})};
}

// Plays a sweep job: each variant's messages, ending early (killed) at `die_at`.
class ScriptedSweep : public JobRunner {
 public:
  using JobRunner::run;
  JobOutcome run(json request, std::chrono::milliseconds, const MessageHook& hook) override {
    firsts.push_back(request["variants"][0]["index"].get<size_t>());
    JobOutcome job;
    for (const auto& variant : request["variants"]) {
      const size_t index = variant["index"].get<size_t>();
      if (index == die_at) {
        job.signal = 9;
        return job;
      }
      for (auto& message : variant_messages(index, index == wrong ? 4 : 0)) {
        ++sent;
        if (hook) hook(message);
        job.messages.push_back(message);
      }
    }
    job.messages.push_back({{"type", "done"}, {"phases", {{"timing", 1.5}}}});
    job.done = true;
    job.exit_code = 0;
    return job;
  }
  size_t die_at = 99, wrong = 99;
  size_t sent = 0;  // messages sent so far
  std::vector<size_t> firsts;
};

JudgePolicy quick_policy() {
  JudgePolicy policy;
  policy.check_determinism = false;
  return policy;
}

class VariantBatchTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("keval_batch_" + std::to_string(::getpid()));
  std::vector<std::filesystem::path> files = {dir / "0.py", dir / "1.py", dir / "2.py", dir / "3.py"};
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(VariantBatchTest, EachVariantIsJudgedFromItsOwnMessages) {
  ScriptedSweep runner;
  runner.wrong = 2;
  RunSettings settings;
  settings.timing.enabled = false;
  auto facts = evaluate_variant_batch(runner, one_case_task(), settings, files, dir, nullptr);
  ASSERT_EQ(facts.size(), 4u);
  EXPECT_EQ(judge(facts[0], quick_policy()).verdict, Verdict::kPass);
  EXPECT_EQ(judge(facts[2], quick_policy()).verdict, Verdict::kMismatch);
  EXPECT_EQ(judge(facts[3], quick_policy()).verdict, Verdict::kPass);
  EXPECT_EQ(runner.firsts, std::vector<size_t>({0}));  // one job for all four
}

TEST_F(VariantBatchTest, AVariantThatKillsItsJobIsACrashAndTheRestGoToANewJob) {
  ScriptedSweep runner;
  runner.die_at = 1;
  RunSettings settings;
  settings.timing.enabled = false;
  auto facts = evaluate_variant_batch(runner, one_case_task(), settings, files, dir, nullptr);
  EXPECT_EQ(judge(facts[0], quick_policy()).verdict, Verdict::kPass);
  EXPECT_EQ(judge(facts[1], quick_policy()).verdict, Verdict::kCrash);
  EXPECT_EQ(judge(facts[2], quick_policy()).verdict, Verdict::kPass);
  EXPECT_EQ(judge(facts[3], quick_policy()).verdict, Verdict::kPass);
  EXPECT_EQ(runner.firsts, std::vector<size_t>({0, 2}));
}

TEST_F(VariantBatchTest, EachJobsPhasesAreCountedOnceOnItsLastFinishedVariant) {
  ScriptedSweep runner;
  runner.die_at = 1;
  RunSettings settings;
  settings.timing.enabled = false;
  auto facts = evaluate_variant_batch(runner, one_case_task(), settings, files, dir, nullptr);
  std::vector<size_t> with_done;
  for (size_t k = 0; k < facts.size(); ++k) {
    if (!facts[k].candidate.of_type("done").empty()) with_done.push_back(k);
  }
  // the first job died in variant 1 (no done message); the second ran variants 2 and 3
  EXPECT_EQ(with_done, std::vector<size_t>({3}));
}

TEST_F(VariantBatchTest, AFinishedVariantIsHandedOnWhileItsJobStillRuns) {
  ScriptedSweep runner;
  RunSettings settings;
  settings.timing.enabled = false;
  std::map<size_t, size_t> sent_when_done;
  evaluate_variant_batch(runner, one_case_task(), settings, files, dir, nullptr,
                         [&](size_t k, EvaluationFacts) { sent_when_done[k] = runner.sent; });
  ASSERT_EQ(sent_when_done.size(), 4u);
  EXPECT_EQ(sent_when_done[0], 6u);  // on variant 1's variant_done: 3 messages a variant
  EXPECT_EQ(sent_when_done[2], 12u);
}

TEST_F(VariantBatchTest, AJobThatDiesBeforeItsFirstVariantEndsEveryRemainingOneTheSameWay) {
  ScriptedSweep runner;
  runner.die_at = 0;
  RunSettings settings;
  auto facts = evaluate_variant_batch(runner, one_case_task(), settings, files, dir, nullptr);
  for (const auto& f : facts) EXPECT_EQ(judge(f, quick_policy()).verdict, Verdict::kCrash);
  EXPECT_EQ(runner.firsts, std::vector<size_t>({0}));  // not retried: it would end the same way
}

TEST(VariantBatches, GroupsByTaskInJobsOfFourToSixteen) {
  std::vector<Submission> submissions;
  std::vector<size_t> pending;
  for (int i = 0; i < 40; ++i) {
    Submission s;
    s.task = i < 30 ? "a" : "b";
    submissions.push_back(s);
    pending.push_back(i);
  }
  auto batches = variant_batches(submissions, pending, 2);
  // 40 variants for 2 slots: jobs of 10 (40 / (2 * 2)), never mixing tasks
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[0].size(), 10u);
  EXPECT_EQ(batches[3], std::vector<size_t>({30, 31, 32, 33, 34, 35, 36, 37, 38, 39}));
}

}  // namespace
}  // namespace keval
