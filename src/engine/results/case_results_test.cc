#include "engine/results/case_results.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

using nlohmann::json;

// One 1024^3 float32 matmul timed at 10 ms: 0.2 TFLOP/s, bounded by the task's compute rate.
TEST(CaseResults, EfficiencyUsesTheTasksComputeRateWhenItNamesOne) {
  Task task;
  task.name = "mm";
  task.dtypes = {"float32"};
  task.flops = "2 * N * N * N";
  task.bytes = "3 * N * N * elem";
  task.cases.push_back({"large", false, json{{"N", 1024}}, {{"N", 1024}}, {}});
  EvaluationFacts facts;
  facts.candidate.done = true;
  facts.timing = JobOutcome{};
  facts.timing->done = true;
  facts.timing->messages.push_back({{"type", "timing"}, {"who", "candidate"}, {"case", "large"},
                                    {"dtype", "float32"}, {"samples_ms", {10.0, 10.0, 10.0}}});
  Ceilings ceilings;
  ceilings.copy_gbps = 4000;
  ceilings.matmul_tflops = {{"float32", 400.0}, {"float32_ieee", 50.0}};
  auto efficiency = [&](const Task& t) {
    SubmissionResult result;
    result.task = t.name;
    fill_case_results(result, t, facts, "golden", /*on_gpu=*/true, &ceilings);
    return result.cases.at(0).efficiency.value_or(-1);
  };
  const double tflops = 2.0 * 1024 * 1024 * 1024 / 10e-3 / 1e12;
  EXPECT_NEAR(efficiency(task), tflops / 400, 1e-9);  // the dtype's rate: TF32 tensor cores
  task.compute_rate = "float32_ieee";
  EXPECT_NEAR(efficiency(task), tflops / 50, 1e-9);
}

// The same 5 us on both sides: the samples alone give an interval of 1.00x itself; the
// harness's own spread at that time on a GPU (judge/harness_spread.h) widens it to 7% a side.
TEST(CaseResults, ASpeedupsIntervalHoldsTheHarnesssSpreadOnTheGpuOnly) {
  Task task;
  task.name = "t";
  auto interval = [&](const std::string& method) {
    EvaluationFacts facts;
    facts.timing = JobOutcome{};
    for (const char* who : {"candidate", "golden"}) {
      facts.timing->messages.push_back({{"type", "timing"}, {"who", who}, {"case", "small"}, {"dtype", "float32"},
                                        {"method", method}, {"samples_ms", {0.005, 0.005, 0.005}}});
    }
    SubmissionResult result;
    fill_case_results(result, task, facts, "golden", /*on_gpu=*/true, nullptr);
    const CaseResult& c = result.cases.at(0);
    return std::make_pair(c.speedup_ci_low.value_or(-1), c.speedup_ci_high.value_or(-1));
  };
  const auto [gpu_low, gpu_high] = interval("cuda_event_cold_l2");
  EXPECT_NEAR(gpu_low, 1 / 1.07, 1e-9);
  EXPECT_NEAR(gpu_high, 1.07, 1e-9);
  const auto [cpu_low, cpu_high] = interval("wall_clock");
  EXPECT_DOUBLE_EQ(cpu_low, 1.0);
  EXPECT_DOUBLE_EQ(cpu_high, 1.0);
}

// Elements the reference leaves undefined: summed over a call's outputs, the worst seed kept.
TEST(CaseResults, ReferenceUndefinedIsTheWorstSeedsCountOverOutputs) {
  Task task;
  task.name = "t";
  EvaluationFacts facts;
  facts.reference = JobOutcome{};
  auto compare = [](int seed, json outputs) {
    return json{{"type", "compare"}, {"case", "perf"}, {"dtype", "float32"}, {"seed", seed}, {"outputs", outputs}};
  };
  facts.reference->messages.push_back(compare(1, {{{"ref_undefined", 3}}, {{"ref_undefined", 4}}}));
  facts.reference->messages.push_back(compare(2, {{{"ref_undefined", 5}}, {{"max_abs_err", 0.0}}}));
  SubmissionResult result;
  fill_case_results(result, task, facts, "golden", /*on_gpu=*/true, nullptr);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases[0].reference_undefined, 7);
  EXPECT_EQ(result.to_json()["cases"][0]["reference_undefined"], 7);
}

}  // namespace
}  // namespace keval
