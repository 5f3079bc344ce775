#pragma once
// What a verdict is decided under besides the facts: the task's flags, the run's checks and
// thresholds. Stored with each evaluation, so `keval rejudge` applies the same policy again,
// changed only where it is asked to.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/precision_check.h"

namespace keval {

struct JudgePolicy {
  bool inplace = false;  // the task allows input mutation
  bool require_kernel = true;  // no_kernel / library_fallback apply
  // library_fallback when the submission's own Triton kernels take less of the call's GPU time.
  double min_own_gpu_share = 0.5;
  // Work the CUDA events miss (side streams, threads) shows as host time around a device-wide
  // synchronize well above the event time: flagged when the gap, less the baselines' gap, is
  // over (ratio - 1) * event + slack (hidden_work_check.h).
  double host_event_ratio = 1.5;
  double host_event_slack_ms = 0.05;
  // Off for keval's own variants (keval sweep): trusted code, timed with no baseline beside it
  // to tell a busy CPU's gap from hidden work.
  bool check_hidden_work = true;
  // The checks the jobs were asked to make, whose messages must therefore be there:
  bool check_determinism = true;  // the candidate job re-runs each case's first call
  bool profile_kernels = false;   // the timing job profiles each case it timed (CUDA)
  // (case, dtype) the timing job times the submission on, when it runs
  std::vector<std::pair<std::string, std::string>> timed_cases;
  // The task's atol and rtol, both multiplied by this (docs/judging.md, "Tolerance"). The runner
  // measured against the unscaled tolerance; the judge rescales its per-output statistics.
  double tolerance_scale = 1.0;
  // The task's precision ("fp32", "tf32", "any") and the thresholds its float32 outputs are
  // held to (judge/precision_check.h, docs/judging.md "Precision").
  std::string precision = "fp32";
  PrecisionThresholds precision_thresholds;

  nlohmann::json to_json() const;
  // A field missing from `j` keeps its default (a policy stored by an older keval).
  static JudgePolicy from_json(const nlohmann::json& j);
};

}  // namespace keval
