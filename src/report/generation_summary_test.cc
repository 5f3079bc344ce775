#include "report/generation_summary.h"

#include <gtest/gtest.h>

#include "report/summary.h"

namespace keval {
namespace {

SubmissionResult sample(const std::string& task, bool pass, std::optional<double> speedup = std::nullopt,
                        const std::string& model = "m") {
  SubmissionResult r;
  r.task = task;
  r.judgement.verdict = pass ? Verdict::kPass : Verdict::kMismatch;
  r.set_call(true);
  r.speedup = speedup;
  if (!model.empty()) {
    r.generation = {{"model", model}, {"prompt_tokens", 100}, {"completion_tokens", 50}, {"latency_s", 2.0},
                    {"cost_usd", 0.01}};
  }
  return r;
}

std::vector<const SubmissionResult*> pointers(const std::vector<SubmissionResult>& results) {
  std::vector<const SubmissionResult*> out;
  for (const auto& r : results) out.push_back(&r);
  return out;
}

TEST(GenerationSummaryTest, PassAtKAveragesTheUnbiasedEstimatorOverTasks) {
  // a: 2 of 4 pass, b: 0 of 4. pass@1 = (0.5 + 0) / 2; pass@4 = (1 + 0) / 2.
  std::vector<SubmissionResult> results = {sample("a", true), sample("a", false), sample("a", true), sample("a", false),
                                           sample("b", false), sample("b", false), sample("b", false), sample("b", false)};
  const auto figures = pass_at_k_over_tasks(pointers(results));
  EXPECT_DOUBLE_EQ(figures["1"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(figures["4"].get<double>(), 0.5);
  EXPECT_FALSE(figures.contains("5"));
}

TEST(GenerationSummaryTest, PassAtKStopsAtTheSmallestSampleCount) {
  std::vector<SubmissionResult> results = {sample("a", true), sample("a", false), sample("b", true)};
  const auto figures = pass_at_k_over_tasks(pointers(results));
  EXPECT_EQ(figures.size(), 1u);
  EXPECT_DOUBLE_EQ(figures["1"].get<double>(), 0.75);
}

TEST(GenerationSummaryTest, FastPOfPassesNeverTimedIsNotMeasured) {
  // --no-timing: two of three pass, none has a speedup; fast_0 is unknown, not 0.
  std::vector<SubmissionResult> results = {sample("a", true), sample("a", false), sample("b", true)};
  const auto models = per_model_summary(results);
  EXPECT_TRUE(models["m"]["fast_p"]["0"].is_null());
  EXPECT_TRUE(models["m"]["fast_p"]["1"].is_null());
  EXPECT_DOUBLE_EQ(models["m"]["exec_accuracy"].get<double>(), 2.0 / 3.0);
}

TEST(GenerationSummaryTest, PerModelFiguresCountEverySampleAndChargePerPass) {
  std::vector<SubmissionResult> results = {sample("a", true, 2.0), sample("a", false), sample("b", true, 0.5),
                                           sample("b", false), sample("a", true, 1.0, "other"),
                                           sample("a", true, 1.0, "")};
  const auto models = per_model_summary(results);
  ASSERT_EQ(models.size(), 2u);
  const auto& m = models["m"];
  EXPECT_EQ(m["n"], 4);
  EXPECT_EQ(m["passes"], 2);
  EXPECT_DOUBLE_EQ(m["fast_p"]["1"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(m["fast_p"]["0"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(m["geomean_speedup"].get<double>(), 1.0);
  EXPECT_LE(m["geomean_speedup_ci"][0].get<double>(), 1.0);
  EXPECT_GE(m["geomean_speedup_ci"][1].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m["tokens_per_pass"].get<double>(), 4 * 150 / 2.0);
  EXPECT_DOUBLE_EQ(m["cost_usd_per_pass"].get<double>(), 0.04 / 2);
  EXPECT_DOUBLE_EQ(m["generation_s_per_pass"].get<double>(), 8.0 / 2);
}

TEST(GenerationSummaryTest, NoPassMeansNoPerPassFigure) {
  std::vector<SubmissionResult> results = {sample("a", false)};
  const auto models = per_model_summary(results);
  const auto& m = models["m"];
  EXPECT_TRUE(m["tokens_per_pass"].is_null());
  EXPECT_TRUE(m["geomean_speedup"].is_null());
  EXPECT_TRUE(m["geomean_speedup_ci"].is_null());
}

TEST(GenerationSummaryTest, CodeMetricMeansSkipWhatWasNotScored) {
  std::vector<SubmissionResult> results = {sample("a", true), sample("a", true), sample("a", true)};
  results[0].code_metrics = {{"codebleu", 0.5}, {"maintainability_index", 60.0}, {"cyclomatic_complexity", 2.0}};
  results[1].code_metrics = {{"codebleu", 1.0}, {"maintainability_index", nullptr}, {"cyclomatic_complexity", nullptr}};
  const auto means = code_metric_means(pointers(results));
  EXPECT_DOUBLE_EQ(means["codebleu_mean"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(means["maintainability_index_mean"].get<double>(), 60.0);
  EXPECT_EQ(means["scored"], 2);
}

TEST(GenerationSummaryTest, SummaryJsonHoldsTheRunsIntervalAndPassAtK) {
  // the report reads these two from summary.json, so the whole run's must be there
  std::vector<SubmissionResult> results = {sample("a", true, 2.0), sample("a", false), sample("b", true, 0.5),
                                           sample("b", true, 1.5)};
  const auto summary = make_summary(results, nlohmann::json::object());
  EXPECT_EQ(summary["geomean_speedup_ci"], geomean_speedup_ci(pointers(results)));
  EXPECT_LE(summary["geomean_speedup_ci"][0].get<double>(), summary["geomean_speedup"].get<double>());
  EXPECT_GE(summary["geomean_speedup_ci"][1].get<double>(), summary["geomean_speedup"].get<double>());
  EXPECT_EQ(summary["pass_at_k"], pass_at_k_over_tasks(pointers(results)));
  EXPECT_TRUE(make_summary({sample("a", false)}, nlohmann::json::object())["geomean_speedup_ci"].is_null());
}

}  // namespace
}  // namespace keval
