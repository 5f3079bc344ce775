#pragma once
// summary.json's figures for sampled submissions (KernelBench's and the Codex paper's view):
// pass@k over tasks, and per model (from each result's `generation` record) pass@k, fast_p,
// geomean speedup with its bootstrap CI, tokens, cost and generation time per passing kernel,
// and the mean code metrics.
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

// {"1": x, "4": y}: the unbiased pass@k averaged over tasks, where each task's n is its number
// of submissions and c its passes. k runs over 1, 5, 10, 100 and the smallest n of any task,
// those not above that n. Empty object for no results.
nlohmann::json pass_at_k_over_tasks(const std::vector<const SubmissionResult*>& results);

// [low, high]: the 95% bootstrap interval of the passing results' geometric-mean speedup, or
// null when none was timed. summary.json's one definition, which the HTML report only reads.
nlohmann::json geomean_speedup_ci(const std::vector<const SubmissionResult*>& results);

// Means of the results' code metrics (null where none was computed), and how many were scored.
nlohmann::json code_metric_means(const std::vector<const SubmissionResult*>& results);

// The figures of one group of samples (a model's, or a whole run's): n, tasks, passes,
// exec_accuracy, pass_at_k, fast_p{0,1,1.5,2}, geomean_speedup(_ci), tokens, cost_usd,
// generation_s and each per passing kernel, code_metrics.
nlohmann::json sample_figures(const std::vector<const SubmissionResult*>& results);

// One object per model named in the results' generation records; empty object when none has one.
nlohmann::json per_model_summary(const std::vector<SubmissionResult>& results);

}  // namespace keval
