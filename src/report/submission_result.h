#pragma once
// One submission's judged result: the object written to results.jsonl and stored in keval.db.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/case_checks.h"
#include "judge/verdict.h"

namespace keval {

struct CaseResult {
  std::string name;
  std::string dtype;
  std::optional<double> time_ms;      // median of the submission's samples
  std::optional<double> ref_time_ms;  // median of the golden kernel's samples
  std::optional<double> speedup;      // ref_time_ms / time_ms
  std::optional<double> speedup_ci_low, speedup_ci_high;
  int samples = 0;
  int ref_samples = 0;
  std::string stop_reason;
  std::optional<double> achieved_gbps, achieved_tflops;  // task bytes/flops over time (GPU only)
  std::optional<double> efficiency;  // roofline fraction against the GPU's measured ceilings
  std::optional<double> max_abs_err, max_rel_err;        // worst over seeds and outputs
  long long reference_undefined = 0;  // output elements the reference leaves undefined (not judged), worst seed
  std::map<std::string, double> baseline_ms;             // medians of the other baselines
};

struct SubmissionResult {
  std::string id;
  std::string task;
  std::string category;
  std::string track;
  std::string origin;
  std::string hash;
  Judgement judgement;
  std::string timing_method;  // "cuda_event_cold_l2", "wall_clock" or "" (not timed)
  std::string baseline;       // what ref_time_ms and speedup compare against
  std::optional<double> speedup;  // geometric mean over cases; only for pass
  std::optional<double> speedup_ci_low, speedup_ci_high;
  std::optional<double> time_ms, ref_time_ms;  // geometric means over cases
  std::optional<double> efficiency;            // geometric mean of the cases' (GPU only)
  std::vector<CaseResult> cases;
  // Each call's correctness (judge/case_checks.h); null in a result judged before they were kept.
  std::optional<std::vector<CaseCheck>> case_checks;
  std::vector<std::string> static_flags;  // informative findings of the static scan
  nlohmann::json job_seconds = nlohmann::json::object();  // per job: wall_s and phases (job_seconds.h)
  nlohmann::json generation;    // the submission's `keval generate` record, null otherwise
  // codebleu (against the golden), maintainability_index, cyclomatic_complexity of the
  // submission's own code (code_metrics.h); null when not computed
  nlohmann::json code_metrics;

  bool call() const { return judgement.verdict != Verdict::kBadSubmission && call_ok_; }
  bool exec() const { return judgement.verdict == Verdict::kPass; }
  void set_call(bool ok) { call_ok_ = ok; }

  nlohmann::json to_json() const;
  static SubmissionResult from_json(const nlohmann::json& j);

 private:
  bool call_ok_ = false;
};

}  // namespace keval
