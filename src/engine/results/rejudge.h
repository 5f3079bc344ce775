#pragma once
// keval rejudge: a finished run's stored facts judged again under a changed policy (today: the
// task tolerances scaled by a factor), with no GPU and no runner. Each line of OUT/results.jsonl
// is judged again from the evaluation it came from in OUT/keval.db, under the judge policy
// stored with it; the new results go to a folder of their own, and OUT keeps its own.
#include <cstddef>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/evaluation_facts.h"
#include "judge/judge_policy.h"
#include "report/submission_result.h"

namespace keval {

// Bad input (a missing folder or file, a results line that is not JSON): one line naming it.
class RejudgeInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RejudgeOptions {
  std::filesystem::path out;  // the run's --out
  double tolerance_scale = 1;  // > 0
  std::filesystem::path into;  // empty: OUT/<rejudge_folder_name(scale)>
};

struct RejudgeOutput {
  std::vector<SubmissionResult> results;  // in results.jsonl's order
  nlohmann::json summary;                 // summary.json's form, with a "rejudge" object
  std::filesystem::path into;             // where results.jsonl and summary.json were written
  size_t changed = 0;                     // results whose verdict changed
  std::map<std::string, size_t> changes;  // "mismatch -> pass": how many
  size_t kept = 0;  // stored without facts or a policy (a bad submission, an older keval): kept as they were
  // judged again, but stored without per-output statistics: their tolerance could not be scaled
  size_t unscaled = 0;
  size_t untimed_passes = 0;  // pass now, never timed (only a passing submission is): no speedup
};

// "rejudged-x2", "rejudged-x0.5": the default folder, inside OUT, for a scale.
std::string rejudge_folder_name(double tolerance_scale);

// `result` judged again from its stored facts under `policy`: the judgement, call flag and
// per-case checks replaced, and the speedups dropped unless it passes (only a pass has a speedup).
SubmissionResult rejudged_result(const SubmissionResult& result, const EvaluationFacts& facts,
                                 const JudgePolicy& policy);

// Reads OUT, writes results.jsonl and summary.json into options.into (made if needed).
// Throws RejudgeInputError on bad input, StoreError when keval.db cannot be read.
RejudgeOutput rejudge_run(RejudgeOptions options);

}  // namespace keval
