#pragma once
// The verdict policy: turns raw facts into pass or exactly one failure class, with reasons.
#include "judge/evaluation_facts.h"
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
};

Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy);

// True when the submission's code ran through its calls (the "call accuracy" of peers):
// every verdict except those of code that could not be loaded or run.
bool verdict_counts_as_call(Verdict verdict);

}  // namespace keval
