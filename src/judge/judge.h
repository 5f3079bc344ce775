#pragma once
// The verdict policy: turns raw facts into pass or exactly one failure class, with reasons.
// It fails closed: a fact the verdict reads that is missing or mistyped, or a check the runner
// was asked for that left no message, never reads as the harmless value.
#include <string>
#include <utility>
#include <vector>

#include "facts/evaluation_facts.h"
#include "judge/verdict.h"

namespace keval {

struct JudgePolicy {
  bool inplace = false;  // the task allows input mutation
  bool require_kernel = true;  // no_kernel / library_fallback apply
  // library_fallback when the submission's own Triton kernels take less of the call's GPU time.
  double min_own_gpu_share = 0.5;
  // Work the CUDA events miss (side streams, threads) shows as host time around a device-wide
  // synchronize well above the event time: flagged when host > ratio * event + slack.
  double host_event_ratio = 1.5;
  double host_event_slack_ms = 0.05;
  // Off for keval's own variants (keval sweep): trusted code, and the check misfires when the
  // timing process waits for a CPU core (more busy slots than cores).
  bool check_hidden_work = true;
  // The checks the jobs were asked to make, whose messages must therefore be there:
  bool check_determinism = true;  // the candidate job re-runs each case's first call
  bool profile_kernels = false;   // the timing job profiles each case it timed (CUDA)
  // (case, dtype) the timing job times the submission on, when it runs
  std::vector<std::pair<std::string, std::string>> timed_cases;
};

Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy);

// True when the submission's code ran through its calls (the "call accuracy" of peers):
// every verdict except those of code that could not be loaded or run.
bool verdict_counts_as_call(Verdict verdict);

}  // namespace keval
