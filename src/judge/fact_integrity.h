#pragma once
// Whether the facts can be judged from at all, decided before any verdict is read from them.
#include <optional>
#include <vector>

#include "facts/evaluation_facts.h"
#include "judge/verdict.h"

namespace keval {

// `tampering` when the submission's text reaches the runner's own objects (frames, gc walks,
// keval's modules): whatever it changed there, the job's facts can no longer be trusted.
std::optional<Judgement> judge_harness_reach(const std::vector<IntrospectionUse>& reach);

// A message that does not parse (facts/runner_message.h: a type the protocol does not have, a
// field missing or mistyped): `tampering` in the candidate's, timing or sanitizer job, whose
// processes ran the submission; a harness `crash` in the reference job, which never loads it.
std::optional<Judgement> judge_malformed_facts(const EvaluationFacts& facts);

}  // namespace keval
