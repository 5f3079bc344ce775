#pragma once
// The verdict policy: turns raw facts into pass or exactly one failure class, with reasons.
// It fails closed: a fact the verdict reads that is missing or mistyped, or a check the runner
// was asked for that left no message, never reads as the harmless value.
#include "facts/evaluation_facts.h"
#include "judge/judge_policy.h"
#include "judge/verdict.h"

namespace keval {

Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy);

// True when the submission's code ran through its calls (the "call accuracy" of peers):
// every verdict except those of code that could not be loaded or run.
bool verdict_counts_as_call(Verdict verdict);

}  // namespace keval
