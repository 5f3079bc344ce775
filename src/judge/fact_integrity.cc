#include "judge/fact_integrity.h"

#include "judge/required_facts.h"

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
    if (auto bad = first_malformed_fact(*job)) return Judgement{Verdict::kTampering, {*bad}};
  }
  if (facts.reference) {
    if (auto bad = first_malformed_fact(*facts.reference)) {
      return Judgement{Verdict::kCrash, {"harness: the reference job's " + *bad}};
    }
  }
  return std::nullopt;
}

}  // namespace keval
