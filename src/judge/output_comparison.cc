#include "judge/output_comparison.h"

#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "judge/precision_check.h"
#include "judge/reason_text.h"
#include "judge/tolerance_check.h"

namespace keval {
namespace {

using nlohmann::json;

std::string shape_text(const json& shape) {
  if (!shape.is_array()) return "?";
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + shape[i].dump();
  return out + (shape.size() == 1 ? ",)" : ")");
}

// Collects failures; the most severe class decides the verdict, and its reasons come first.
class Findings {
 public:
  void add(Verdict verdict, std::string reason) {
    if (!verdict_ || rank(verdict) < rank(*verdict_)) verdict_ = verdict;
    if (found_.size() < 8) found_.emplace_back(verdict, std::move(reason));
  }
  bool any() const { return verdict_.has_value(); }
  Judgement result() const {
    Judgement judgement{*verdict_, {}};
    for (const auto& [verdict, reason] : found_) {
      if (verdict == *verdict_) judgement.reasons.push_back(reason);
    }
    for (const auto& [verdict, reason] : found_) {
      if (verdict != *verdict_) judgement.reasons.push_back(reason);
    }
    return judgement;
  }

 private:
  // Severity order among output-level failures found in one pass.
  static int rank(Verdict v) {
    switch (v) {
      case Verdict::kWrongShape: return 0;
      case Verdict::kWrongDtype: return 1;
      case Verdict::kNanMismatch: return 2;
      case Verdict::kMismatch: return 3;
      default: return 4;
    }
  }
  std::optional<Verdict> verdict_;
  std::vector<std::pair<Verdict, std::string>> found_;
};

// "; first at [1, 1000] (element 2001 of 37037): got nan, expected 0.527, allowed |diff| <= 1e-05
// + 1e-05 x |expected|" from the reference job's `first_bad`; "" when it did not send one.
std::string first_bad_text(const OutputComparison& out) {
  if (!out.first_bad.is_object()) return "";
  const json& bad = out.first_bad;
  // Seven digits: three made "got 0.579, expected 0.579" of a float32 element 2e-4 apart.
  auto value = [](const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_number()) return std::string("n/a");
    std::ostringstream text;
    text.precision(7);
    text << v.get<double>();
    return text.str();
  };
  std::string position;
  if (auto found = bad.find("position"); found != bad.end() && found->is_array()) {
    for (const auto& p : *found) position += (position.empty() ? "" : ", ") + p.dump();
  }
  std::string text = "; first at [" + position + "]";
  if (bad.contains("flat_index") && bad["flat_index"].is_number()) {
    text += " (element " + bad["flat_index"].dump() + " of " + std::to_string(out.numel) + ")";
  }
  auto field = [&](const char* name) { return bad.contains(name) ? bad[name] : json(nullptr); };
  const json actual = field("actual"), expected = field("expected");
  text += ": got " + value(actual) + ", expected " + value(expected);
  if (actual.is_number() && expected.is_number()) {
    text += " (diff " + number(std::abs(actual.get<double>() - expected.get<double>())) + ")";
  }
  if (out.atol && out.rtol) {
    text += *out.atol == 0 && *out.rtol == 0
                ? ", exact match required"
                : ", allowed |diff| <= " + number(out.atol) + " + " + number(out.rtol) + " x |expected|";
  }
  return text;
}

// Why an output's values are outside tolerance. At the task's own tolerance, the runner's count
// and first element outside it say it best; under a scaled one only the statistics apply.
std::string mismatch_text(const OutputComparison& out, const ToleranceCheck& check, double scale) {
  const std::string max_abs = "; max abs err " + number(out.max_abs_err);
  if ((scale == 1 && out.n_over_tol > 0) || !check.from_statistics) {
    return std::to_string(out.n_over_tol) + " of " + std::to_string(out.numel) + " elements outside tolerance" +
           first_bad_text(out) + max_abs +
           (check.from_statistics || scale == 1 ? "" : " (stored without max_tol_ratio: judged at the task's own tolerance)");
  }
  std::string text;
  if (check.max_ratio > scale) {
    text = "values outside " + number(scale) + " x the task tolerance: the largest |diff| is " +
           number(check.max_ratio) + " x the task tolerance";
    if (out.atol && out.rtol) {
      text += " (allowed |diff| <= " + number(scale * *out.atol) + " + " + number(scale * *out.rtol) +
              " x |expected|)";
    }
  }
  if (check.disagreements > 0) {
    text += (text.empty() ? "" : "; ") + std::to_string(check.disagreements) + " of " +
            std::to_string(out.numel) + " NaN/Inf positions differ from the reference's";
  }
  return text + max_abs;
}

void judge_comparison(const CompareMessage& compare, const JudgePolicy& policy, Findings& findings) {
  const double scale = policy.tolerance_scale;
  const std::string at = where(compare.at);
  if (compare.missing) {
    findings.add(Verdict::kRuntimeError, at + "the submission saved no output for this call");
    return;
  }
  if (compare.n_outputs != compare.ref_n_outputs) {
    findings.add(Verdict::kWrongShape, at + "returned " + std::to_string(compare.n_outputs) +
                                           " outputs, the reference " + std::to_string(compare.ref_n_outputs));
    return;
  }
  for (const OutputComparison& out : compare.outputs) {
    const std::string name = at + "output " + std::to_string(out.index) + ": ";
    if (out.shape != out.ref_shape) {
      findings.add(Verdict::kWrongShape, name + "shape " + shape_text(out.shape) +
                                             ", expected " + shape_text(out.ref_shape));
      continue;
    }
    if (out.dtype != out.ref_dtype) {
      findings.add(Verdict::kWrongDtype, name + "dtype " + out.dtype + ", expected " + out.ref_dtype);
      continue;
    }
    if ((out.nan > 0 && out.ref_nan == 0) || (out.inf > 0 && out.ref_inf == 0)) {
      findings.add(Verdict::kNanMismatch, name + std::to_string(out.nan) + " NaN and " +
                                              std::to_string(out.inf) + " Inf values where the reference has " +
                                              std::to_string(out.ref_nan) + " and " + std::to_string(out.ref_inf) +
                                              first_bad_text(out));
      continue;
    }
    if (auto zero = all_zero_failure(out)) {
      findings.add(Verdict::kMismatch, name + *zero);
      continue;
    }
    const ToleranceCheck check = check_tolerance(out, scale);
    if (check.outside) {
      findings.add(Verdict::kMismatch, name + mismatch_text(out, check, scale));
    } else if (auto lower = precision_failure(out, policy.precision, policy.precision_thresholds)) {
      // only within the tolerance: an output outside it is wrong whatever its precision
      findings.add(Verdict::kMismatch, name + *lower);
    }
  }
}

}  // namespace

std::optional<Judgement> judge_outputs(const std::vector<CompareMessage>& compares, const JudgePolicy& policy) {
  Findings findings;
  for (const CompareMessage& compare : compares) judge_comparison(compare, policy, findings);
  if (!findings.any()) return std::nullopt;
  return findings.result();
}

}  // namespace keval
