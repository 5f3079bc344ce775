#pragma once
// The verdict policy: turns raw facts into pass or exactly one failure class, with reasons.
#include "judge/evaluation_facts.h"
#include "judge/verdict.h"

namespace keval {

struct JudgePolicy {
  bool inplace = false;  // the task allows input mutation
};

Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy);

// True when the submission's code ran through its calls (the "call accuracy" of peers):
// every verdict except those of code that could not be loaded or run.
bool verdict_counts_as_call(Verdict verdict);

}  // namespace keval
