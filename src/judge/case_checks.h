#pragma once
// Per-case correctness: a line for each call the candidate job made (a case, dtype and seed) with
// what the judge finds of that call alone, pass or a failure class and its reason. Decided from
// the facts the verdict is decided from: the reference job's comparison of the call's outputs
// (a process that never loads the submission) and the warden's account of the call, never the
// guest's word. The verdict also weighs what no one call shows (determinism, timing, the
// kernels that ran), so every call may pass while the verdict does not.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/evaluation_facts.h"
#include "judge/judge_policy.h"

namespace keval {

struct CaseCheck {
  std::string case_name;  // a held-out case's name holds its drawn shape symbols
  std::string dtype;
  std::optional<long long> seed;
  nlohmann::json shapes;  // the reference's output shapes, null where the outputs were not compared
  std::string result;     // "pass", a verdict's name, or "unchecked": the outputs were never compared
  std::string reason;     // why not "pass", "" when it is
  std::optional<double> max_abs_err, max_rel_err;  // the worst of the call's outputs

  bool passed() const { return result == "pass"; }
  nlohmann::json to_json() const;
  static CaseCheck from_json(const nlohmann::json& j);
};

// In the order the candidate job made its calls.
std::vector<CaseCheck> check_cases(const EvaluationFacts& facts, const JudgePolicy& policy);

}  // namespace keval
