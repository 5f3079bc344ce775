#include "judge/case_checks.h"

#include <algorithm>

#include "judge/call_failure.h"
#include "judge/output_comparison.h"
#include "judge/reason_text.h"

namespace keval {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

std::optional<double> number_field(const json& j, const char* key) {
  auto found = j.find(key);
  if (found == j.end() || !found->is_number()) return std::nullopt;
  return found->get<double>();
}

void keep_worst(std::optional<double>& worst, const std::optional<double>& value) {
  if (value) worst = worst ? std::max(*worst, *value) : *value;
}

// The line names its call already: its reason drops the judge's "case odd float32 seed 7: ".
std::string reason_without_place(const std::string& reason, const Place& at) {
  const std::string prefix = where(at);
  return reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason;
}

std::optional<Judgement> call_raised(const std::vector<ErrorMessage>& errors, const Place& at) {
  for (const ErrorMessage& error : errors) {
    // the call, or its determinism re-run on the same inputs
    if (error.stage == "call" && error.at.same_call(at)) return failed_call(error);
  }
  return std::nullopt;
}

const CompareMessage* compare_of(const std::vector<CompareMessage>& compares, const Place& at) {
  for (const CompareMessage& compare : compares) {
    if (compare.at.same_call(at)) return &compare;
  }
  return nullptr;
}

}  // namespace

json CaseCheck::to_json() const {
  return {{"case", case_name},
          {"dtype", dtype},
          {"seed", seed ? json(*seed) : json(nullptr)},
          {"shapes", shapes},
          {"result", result},
          {"reason", reason.empty() ? json(nullptr) : json(reason)},
          {"max_abs_err", optional_number(max_abs_err)},
          {"max_rel_err", optional_number(max_rel_err)}};
}

CaseCheck CaseCheck::from_json(const json& j) {
  CaseCheck check;
  check.case_name = j.value("case", "");
  check.dtype = j.value("dtype", "");
  if (auto seed = j.find("seed"); seed != j.end() && seed->is_number_integer()) check.seed = seed->get<long long>();
  check.shapes = j.value("shapes", json());
  check.result = j.value("result", "");
  if (auto reason = j.find("reason"); reason != j.end() && reason->is_string()) check.reason = reason->get<std::string>();
  check.max_abs_err = number_field(j, "max_abs_err");
  check.max_rel_err = number_field(j, "max_rel_err");
  return check;
}

std::vector<CaseCheck> check_cases(const EvaluationFacts& facts, const JudgePolicy& policy) {
  const std::vector<CompareMessage> compares =
      facts.reference ? facts.reference->messages_of<CompareMessage>() : std::vector<CompareMessage>{};
  const std::vector<ErrorMessage> errors = facts.candidate.messages_of<ErrorMessage>();
  std::vector<CaseCheck> checks;
  for (const CallMessage& call : facts.candidate.messages_of<CallMessage>()) {
    CaseCheck check{call.at.case_name.value_or(""), call.at.dtype.value_or(""), call.at.seed};
    const CompareMessage* compare = compare_of(compares, call.at);
    if (compare && !compare->missing) {
      check.shapes = json::array();
      for (const OutputComparison& out : compare->outputs) {
        check.shapes.push_back(out.ref_shape);
        keep_worst(check.max_abs_err, out.max_abs_err);
        keep_worst(check.max_rel_err, out.max_rel_err);
      }
    }
    // the judge's order (judge.cc): what makes the measurements lie, then the call's own error,
    // then its inputs, then its outputs
    std::optional<Judgement> failure = call_integrity_failure(call);
    if (!failure) failure = call_raised(errors, call.at);
    if (!failure && !call.ok) failure = Judgement{Verdict::kRuntimeError, {"the call returned no outputs"}};
    if (!failure) failure = call_input_failure(call, policy.inplace);
    if (!failure && compare) failure = judge_outputs({*compare}, policy);
    if (failure) {
      check.result = verdict_name(failure->verdict);
      check.reason = failure->reasons.empty() ? "" : reason_without_place(failure->reasons.front(), call.at);
    } else {
      check.result = compare ? "pass" : "unchecked";
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace keval
