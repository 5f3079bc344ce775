#include "judge/fact_integrity.h"

namespace keval {

std::optional<Judgement> judge_harness_reach(const std::vector<IntrospectionUse>& reach) {
  if (reach.empty()) return std::nullopt;
  Judgement judgement{Verdict::kTampering, {}};
  for (const auto& use : reach) {
    judgement.reasons.push_back("the submission's code reaches keval's runner through " + use.describe());
  }
  return judgement;
}

std::optional<Judgement> judge_malformed_facts(const EvaluationFacts& facts) {
  for (const auto* job : {&facts.candidate, facts.timing ? &*facts.timing : nullptr,
                          facts.sanitizer ? &*facts.sanitizer : nullptr}) {
    if (!job) continue;
    if (auto bad = job->first_fault()) return Judgement{Verdict::kTampering, {*bad}};
  }
  if (facts.reference) {
    if (auto bad = facts.reference->first_fault()) {
      return Judgement{Verdict::kCrash, {"harness: the reference job's " + *bad}};
    }
  }
  return std::nullopt;
}

}  // namespace keval
