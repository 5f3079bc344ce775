#include "judge/judge.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "judge/expected_messages.h"
#include "judge/fact_integrity.h"
#include "judge/required_facts.h"
#include "judge/tolerance_check.h"

namespace keval {
namespace {

using nlohmann::json;

// A number field, or `fallback` when it is missing or null. Every fact a verdict turns on is
// checked present and typed first (required_facts.h): the fallback only serves figures that
// are null when not measured and the text of reasons.
double num(const json& fact, const char* key, double fallback) {
  auto found = fact.find(key);
  return found != fact.end() && found->is_number() ? found->get<double>() : fallback;
}

long long count(const json& fact, const char* key) {
  return static_cast<long long>(num(fact, key, 0));
}

std::string where(const json& fact) {
  const std::string at = measured_where(fact);
  return at.empty() ? at : at + ": ";
}

std::string error_text(const json& error) {
  std::string text = where(error) + error.value("error_kind", "Error");
  if (error.contains("line") && error["line"].is_number()) {
    text += " at line " + std::to_string(error["line"].get<int>());
  }
  std::string message = error.value("message", "");
  if (!message.empty()) text += ": " + message;
  return text;
}

bool is_compile_error(const std::string& kind) {
  return kind == "SyntaxError" || kind == "IndentationError" || kind == "TabError" ||
         kind.find("CompilationError") != std::string::npos || kind == "CompileTimeAssertionFailure";
}

std::string shape_text(const json& shape) {
  if (!shape.is_array()) return "?";
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + shape[i].dump();
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string number(const json& value) {
  if (!value.is_number()) return "n/a";
  std::ostringstream out;
  out.precision(3);
  out << value.get<double>();
  return out.str();
}

// Collects failures; the most severe class decides the verdict, and its reasons come first
// (a nan_mismatch led by another output's "elements outside tolerance" read as a contradiction).
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
std::string first_bad_text(const json& out) {
  auto found = out.find("first_bad");
  if (found == out.end() || !found->is_object()) return "";
  const json& bad = *found;
  // Seven digits: three made "got 0.579, expected 0.579" of a float32 element 2e-4 apart.
  auto value = [](const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_number()) return std::string("n/a");
    std::ostringstream out;
    out.precision(7);
    out << v.get<double>();
    return out.str();
  };
  std::string position;
  for (const auto& p : bad.value("position", json::array())) position += (position.empty() ? "" : ", ") + p.dump();
  std::string text = "; first at [" + position + "]";
  if (bad.contains("flat_index") && bad["flat_index"].is_number()) {
    text += " (element " + bad["flat_index"].dump() + " of " + std::to_string(count(out, "numel")) + ")";
  }
  const json actual = bad.value("actual", json(nullptr)), expected = bad.value("expected", json(nullptr));
  text += ": got " + value(actual) + ", expected " + value(expected);
  if (actual.is_number() && expected.is_number()) {
    text += " (diff " + number(json(std::abs(actual.get<double>() - expected.get<double>()))) + ")";
  }
  if (out.contains("atol") && out["atol"].is_number() && out.contains("rtol") && out["rtol"].is_number()) {
    text += num(out, "atol", 0) == 0 && num(out, "rtol", 0) == 0
                ? ", exact match required"
                : ", allowed |diff| <= " + number(out["atol"]) + " + " + number(out["rtol"]) + " x |expected|";
  }
  return text;
}

// Why an output's values are outside tolerance. At the task's own tolerance, the runner's count
// and first element outside it say it best; under a scaled one only the statistics apply.
std::string mismatch_text(const json& out, const ToleranceCheck& check, double scale) {
  const long long over = count(out, "n_over_tol");
  const std::string max_abs = "; max abs err " + number(out["max_abs_err"]);
  if ((scale == 1 && over > 0) || !check.from_statistics) {
    return std::to_string(over) + " of " + std::to_string(count(out, "numel")) + " elements outside tolerance" +
           first_bad_text(out) + max_abs +
           (check.from_statistics || scale == 1 ? "" : " (stored without max_tol_ratio: judged at the task's own tolerance)");
  }
  std::string text;
  if (check.max_ratio > scale) {
    text = "values outside " + number(json(scale)) + " x the task tolerance: the largest |diff| is " +
           number(json(check.max_ratio)) + " x the task tolerance";
    if (out.contains("atol") && out["atol"].is_number() && out.contains("rtol") && out["rtol"].is_number()) {
      text += " (allowed |diff| <= " + number(json(scale * num(out, "atol", 0))) + " + " +
              number(json(scale * num(out, "rtol", 0))) + " x |expected|)";
    }
  }
  if (check.disagreements > 0) {
    text += (text.empty() ? "" : "; ") + std::to_string(check.disagreements) + " of " +
            std::to_string(count(out, "numel")) + " NaN/Inf positions differ from the reference's";
  }
  return text + max_abs;
}

std::optional<Judgement> judge_process_end(const JobOutcome& job, const std::string& who) {
  if (job.timed_out) {
    return Judgement{Verdict::kTimeout,
                     {who + " killed at its deadline after " + number(job.wall_s) + " s"}};
  }
  if (job.runner_lost) return Judgement{Verdict::kCrash, {who + ": " + job.stderr_tail}};
  return std::nullopt;
}

std::string exit_text(const JobOutcome& job) {
  if (job.signal) return "signal " + std::to_string(*job.signal);
  if (job.exit_code) return "exit code " + std::to_string(*job.exit_code);
  return "unknown status";
}

double median_of(const json& values) {
  std::vector<double> v;
  for (const auto& x : values) {
    if (x.is_number()) v.push_back(x.get<double>());
  }
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::string names_text(const json& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + (name.is_string() ? name.get<std::string>() : name.dump());
  return out;
}

// Hacks that make measurements lie: patched functions, foreign output types, cached outputs,
// work outside the timed stream, writes outside an input's bounds.
std::optional<Judgement> judge_integrity(const JobOutcome& job, const JudgePolicy& policy) {
  for (const json* t : job.of_type("tampering")) {
    return Judgement{Verdict::kTampering, {where(*t) + "the submission replaced " +
                                           names_text(t->value("names", json::array())) +
                                           " (during " + t->value("stage", "?") + ")"}};
  }
  for (const json* call : job.of_type("call")) {
    const json& foreign = (*call)["foreign_output_types"];
    if (!foreign.empty()) {
      return Judgement{Verdict::kTampering, {where(*call) + "outputs must be plain torch.Tensor, got " +
                                             names_text(foreign)}};
    }
    const json& guards = (*call)["guard_violations"];
    if (!guards.empty()) {
      return Judgement{Verdict::kOutOfBounds, {where(*call) + "wrote outside the bounds of input(s) " +
                                               names_text(guards) + " (guard bands changed)"}};
    }
  }
  for (const json* timing : job.of_type("timing")) {
    if (timing->value("who", "candidate") != "candidate") continue;  // baselines are trusted
    long long mismatches = count(*timing, "timed_output_mismatches");
    if (mismatches > 0) {
      return Judgement{Verdict::kTampering,
                       {where(*timing) + std::to_string(mismatches) + " of " +
                        std::to_string(count(*timing, "timed_output_checks")) +
                        " timed calls returned outputs that differ from the verified ones "
                        "(cached or replayed results)"}};
    }
    if (long long persisting = count(*timing, "l2_persisting_bytes"); persisting > 0) {
      return Judgement{Verdict::kTampering,
                       {where(*timing) + "the submission set " + std::to_string(persisting) +
                        " bytes of L2 aside for persisting accesses, which would outlast the "
                        "cold-L2 flush between timed samples"}};
    }
    if (policy.check_hidden_work && timing->value("method", "") == "cuda_event_cold_l2" &&
        timing->contains("host_samples_ms") &&
        (*timing)["host_samples_ms"].is_array()) {
      double event = median_of((*timing)["samples_ms"]);
      double host = median_of((*timing)["host_samples_ms"]);
      if (host > policy.host_event_ratio * event + policy.host_event_slack_ms) {
        return Judgement{Verdict::kTampering,
                         {where(*timing) + "host time to a device-wide sync (" + number(host) +
                          " ms) far exceeds the CUDA event time (" + number(event) +
                          " ms): work runs outside the timed stream"}};
      }
    }
  }
  return std::nullopt;
}

std::optional<Judgement> judge_fallback(const JobOutcome& job, const JudgePolicy& policy) {
  if (!policy.require_kernel) return std::nullopt;  // any code may do the work (e.g. KernelBench's)
  for (const json* ablation : job.of_type("ablation")) {
    if (ablation->value("outputs_unchanged", false)) {
      return Judgement{Verdict::kLibraryFallback,
                       {where(*ablation) + "with the submission's own kernels (" +
                        names_text(ablation->value("suppressed", json::array())) +
                        ") suppressed, the call's outputs did not change: other code did the work"}};
    }
  }
  for (const json* profile : job.of_type("kernel_profile")) {
    // null: the call took no device time at all, so no share of it went elsewhere
    if ((*profile)["own_share"].is_null()) continue;
    const double share = (*profile)["own_share"].get<double>();
    if (share < policy.min_own_gpu_share) {
      std::string top;
      for (const auto& kernel : profile->value("kernels", json::array())) {
        if (kernel.value("own", false)) continue;
        top += (top.empty() ? "" : ", ") + kernel.value("name", std::string("?")).substr(0, 60);
        if (top.size() > 150) break;
      }
      return Judgement{Verdict::kLibraryFallback,
                       {where(*profile) + "the submission's Triton kernels took " +
                        number(share * 100) + "% of the call's GPU time (at least " +
                        number(policy.min_own_gpu_share * 100) + "% required); other kernels: " + top}};
    }
  }
  return std::nullopt;
}

std::optional<Judgement> judge_candidate(const JobOutcome& job, const JudgePolicy& policy) {
  if (auto end = judge_process_end(job, "the submission")) return end;
  for (const json* error : job.of_type("error")) {
    const std::string stage = error->value("stage", "");
    const std::string kind = error->value("error_kind", "");
    if (stage == "import") {
      return Judgement{is_compile_error(kind) ? Verdict::kCompileError : Verdict::kRuntimeError,
                       {"while loading the submission: " + error_text(*error)}};
    }
    if (stage == "entry") return Judgement{Verdict::kMissingEntry, {error->value("message", "")}};
  }
  // What a call was seen doing outranks how the process ended afterwards (a write outside an
  // input's bounds can corrupt the heap and abort the job before it reports `done`).
  if (auto integrity = judge_integrity(job, policy)) return integrity;
  if (!job.done) {
    std::string reason = "the process ended (" + exit_text(job) + ") before reporting every result";
    // the first error it reported says why (a lost CUDA context, the runner's own fault)
    for (const json* error : job.of_type("error")) {
      reason += ": " + error_text(*error);
      break;
    }
    if (!job.stderr_tail.empty()) reason += "; stderr: " + job.stderr_tail.substr(0, 500);
    return Judgement{Verdict::kCrash, {reason}};
  }
  for (const json* error : job.of_type("error")) {
    const std::string kind = error->value("error_kind", "");
    if (error->value("stage", "") != "call") continue;
    if (kind == "NonTensorOutput") return Judgement{Verdict::kWrongShape, {error_text(*error)}};
    return Judgement{is_compile_error(kind) ? Verdict::kCompileError : Verdict::kRuntimeError,
                     {error_text(*error)}};
  }
  for (const json* error : job.of_type("error")) {
    if (error->value("stage", "") == "profile") continue;  // informs only
    return Judgement{Verdict::kCrash, {"harness: " + error_text(*error)}};
  }
  auto calls = job.of_type("call");
  if (calls.empty()) return Judgement{Verdict::kCrash, {"the submission reported no calls"}};
  bool any_kernel = false;
  std::string other;
  for (const json* call : calls) {
    if (!policy.inplace && (*call)["inputs_mutated"].get<bool>()) {
      return Judgement{Verdict::kInputMutated,
                       {where(*call) + "the call changed its inputs (the task does not allow it)"}};
    }
    if (!policy.inplace && (*call)["output_is_input"].get<bool>()) {
      return Judgement{Verdict::kTampering, {where(*call) + "an output aliases an input tensor"}};
    }
    if (!(*call)["kernels"].empty()) any_kernel = true;
    if (!(*call)["other_kernels"].empty() && other.empty()) {
      other = (*call)["other_kernels"].dump();
    }
  }
  if (!any_kernel && policy.require_kernel) {
    return Judgement{Verdict::kNoKernel,
                     {"no Triton kernel defined in the submission ran during its calls" +
                      (other.empty() ? std::string() : " (other kernels: " + other + ")")}};
  }
  return judge_fallback(job, policy);
}

void judge_outputs(const json& compare, double scale, Findings& findings) {
  const std::string at = where(compare);
  if (compare.value("missing", false)) {
    findings.add(Verdict::kRuntimeError, at + "the submission saved no output for this call");
    return;
  }
  long long n = count(compare, "n_outputs"), expected = count(compare, "ref_n_outputs");
  if (n != expected) {
    findings.add(Verdict::kWrongShape, at + "returned " + std::to_string(n) +
                                           " outputs, the reference " + std::to_string(expected));
    return;
  }
  for (const json& out : compare.value("outputs", json::array())) {
    const std::string name = at + "output " + std::to_string(count(out, "index")) + ": ";
    if (out["shape"] != out["ref_shape"]) {
      findings.add(Verdict::kWrongShape, name + "shape " + shape_text(out["shape"]) +
                                             ", expected " + shape_text(out["ref_shape"]));
      continue;
    }
    if (out["dtype"] != out["ref_dtype"]) {
      findings.add(Verdict::kWrongDtype, name + "dtype " + out.value("dtype", "?") +
                                             ", expected " + out.value("ref_dtype", "?"));
      continue;
    }
    long long nan = count(out, "nan"), inf = count(out, "inf");
    long long ref_nan = count(out, "ref_nan"), ref_inf = count(out, "ref_inf");
    if ((nan > 0 && ref_nan == 0) || (inf > 0 && ref_inf == 0)) {
      findings.add(Verdict::kNanMismatch, name + std::to_string(nan) + " NaN and " +
                                              std::to_string(inf) + " Inf values where the reference has " +
                                              std::to_string(ref_nan) + " and " + std::to_string(ref_inf) +
                                              first_bad_text(out));
      continue;
    }
    const ToleranceCheck check = check_tolerance(out, scale);
    if (check.outside) findings.add(Verdict::kMismatch, name + mismatch_text(out, check, scale));
  }
}

// The timing job runs the submission again (many calls, rotated inputs): it can still fail,
// and it is where cached outputs and work outside the timed stream show.
std::optional<Judgement> judge_timing_job(const JobOutcome& job, const JudgePolicy& policy) {
  if (auto end = judge_process_end(job, "the timing job")) return end;
  if (auto integrity = judge_integrity(job, policy)) return integrity;
  for (const json* error : job.of_type("error")) {
    const std::string stage = error->value("stage", "");
    if (stage == "profile") continue;
    const std::string kind = error->value("error_kind", "");
    if (stage == "call" || stage == "timing" || stage == "import") {
      return Judgement{is_compile_error(kind) ? Verdict::kCompileError : Verdict::kRuntimeError,
                       {"while timing: " + error_text(*error)}};
    }
    return Judgement{Verdict::kCrash, {"harness (timing): " + error_text(*error)}};
  }
  if (!job.done) {
    return Judgement{Verdict::kCrash, {"the timing job ended (" + exit_text(job) +
                                       ") before reporting every result"}};
  }
  // Every failure it could report was judged above: a case with neither a time nor an error,
  // or a timed case without its profile, had its message suppressed.
  if (auto gap = missing_timing(job, policy.timed_cases)) return Judgement{Verdict::kTampering, {*gap}};
  if (policy.profile_kernels) {
    if (auto gap = missing_kernel_profile(job)) return Judgement{Verdict::kTampering, {*gap}};
  }
  return judge_fallback(job, policy);
}

// --sanitize: memcheck's errors are out-of-bounds (or freed, misaligned) accesses; a job whose
// log holds no summary means the tool never ran, which must not read as a clean check.
std::optional<Judgement> judge_memcheck(const JobOutcome& job) {
  if (job.of_type("memcheck").empty()) {
    return Judgement{Verdict::kCrash, {"harness: the compute-sanitizer job has no memcheck report (" +
                                       exit_text(job) + ")"}};
  }
  for (const json* report : job.of_type("memcheck")) {
    if (!(*report)["summary_found"].get<bool>()) {
      return Judgement{Verdict::kCrash, {"harness: compute-sanitizer wrote no error summary (" +
                                         exit_text(job) + "; log " + report->value("log", "?") + ")"}};
    }
    const long long errors = (*report)["errors"].get<long long>();
    if (errors > 0) {
      std::string first = names_text(report->value("first_errors", json::array()));
      return Judgement{Verdict::kOutOfBounds, {"compute-sanitizer memcheck found " + std::to_string(errors) +
                                               " error(s) on the small cases" + (first.empty() ? "" : ": " + first)}};
    }
  }
  return std::nullopt;
}

}  // namespace

Judgement judge_facts(const EvaluationFacts& facts, const JudgePolicy& policy);

Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy) {
  try {
    return judge_facts(facts, policy);
  } catch (const nlohmann::json::exception& e) {
    // A fact of the wrong type came from the child (a submission can write into the
    // runner's process): never trusted, never fatal.
    return {Verdict::kCrash, {std::string("harness: malformed runner facts: ") + e.what()}};
  }
}

namespace {

// The reference job compared the candidate's differing re-run with its first call outside the
// elements the reference leaves undefined (tasks with check_reference_defined) and found none.
bool differs_only_where_reference_undefined(const json& check, const std::vector<const json*>& compares) {
  for (const json* compare : compares) {
    if (compare->value("case", "") == check.value("case", "") &&
        compare->value("dtype", "") == check.value("dtype", "") && (*compare)["seed"] == check["seed"] &&
        compare->contains("rerun_differs_where_defined")) {
      return !(*compare)["rerun_differs_where_defined"].get<bool>();
    }
  }
  return false;
}

}  // namespace

Judgement judge_facts(const EvaluationFacts& facts, const JudgePolicy& policy) {
  if (auto reach = judge_harness_reach(facts.harness_reach)) return *reach;
  if (auto malformed = judge_malformed_facts(facts)) return *malformed;
  if (auto failure = judge_candidate(facts.candidate, policy)) return *failure;
  if (!facts.reference) return {Verdict::kCrash, {"harness: the reference comparison did not run"}};
  const JobOutcome& reference = *facts.reference;
  if (reference.timed_out || reference.runner_lost || !reference.done) {
    std::string reason = "harness: the reference job failed (" + exit_text(reference) + ")";
    for (const json* error : reference.of_type("error")) reason += "; " + error_text(*error);
    return {Verdict::kCrash, {reason}};
  }
  if (auto gap = missing_comparison(facts.candidate, reference)) {
    std::string reason = "harness: " + *gap;
    for (const json* error : reference.of_type("error")) {
      reason += "; " + error_text(*error);
      break;
    }
    return {Verdict::kCrash, {reason}};
  }
  Findings findings;
  auto compares = reference.of_type("compare");
  for (const json* compare : compares) judge_outputs(*compare, policy.tolerance_scale, findings);
  if (findings.any()) return findings.result();
  if (compares.empty()) return {Verdict::kCrash, {"harness: no comparison was reported"}};
  if (policy.check_determinism) {
    if (auto gap = missing_determinism(facts.candidate)) return {Verdict::kTampering, {*gap}};
  }
  for (const json* check : facts.candidate.of_type("determinism")) {
    if (!(*check)["same"].get<bool>() && !differs_only_where_reference_undefined(*check, compares)) {
      return {Verdict::kNondeterministic,
              {where(*check) + "two runs on the same inputs differ (max abs diff " +
               number((*check)["max_abs_diff"]) + ")"}};
    }
  }
  if (facts.sanitizer) {
    if (auto failure = judge_memcheck(*facts.sanitizer)) return *failure;
  }
  if (facts.timing) {
    if (auto failure = judge_timing_job(*facts.timing, policy)) return *failure;
  }
  return {Verdict::kPass, {}};
}

bool verdict_counts_as_call(Verdict verdict) {
  switch (verdict) {
    case Verdict::kBadSubmission:
    case Verdict::kMissingEntry:
    case Verdict::kCompileError:
    case Verdict::kRuntimeError:
    case Verdict::kCrash:
    case Verdict::kTimeout:
      return false;
    default:
      return true;
  }
}

}  // namespace keval
