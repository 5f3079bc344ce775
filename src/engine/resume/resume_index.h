#pragma once
// Which submissions a run must evaluate: not the bad ones (unusable, or for an unknown task),
// not those the store already holds a result for under the same evaluation key (resume), and
// the same code for the same task only once per run.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/resume/evaluation_key.h"
#include "engine/resume/rerun_selection.h"
#include "report/submission_result.h"
#include "store/store.h"
#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

struct ResumeIndex {
  std::vector<std::optional<SubmissionResult>> results;  // by line: the bad and resumed ones
  std::vector<std::string> keys;                          // by line: evaluation keys ("" = none)
  std::vector<size_t> pending;                            // lines to evaluate, in order
  std::vector<std::pair<size_t, size_t>> same_code_as;    // (line, earlier line, same key)
  size_t resumed = 0;
};

// Lines for a task that `tasks_glob` leaves out get neither a result nor a key. A stored
// result that `rerun` wants judged again is pending like a new one.
ResumeIndex index_submissions(const std::vector<Submission>& submissions, const Suite& suite,
                              const std::string& tasks_glob, const RunSettings& settings,
                              const EvaluationContext& context, const Store& store,
                              const RerunSelection& rerun);

// Stores each bad submission's result once, under a key made from its hash (into `index.keys`).
void store_bad_submissions(Store& store, int64_t run_id, const std::vector<Submission>& submissions,
                           ResumeIndex& index);

}  // namespace keval
