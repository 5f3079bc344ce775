#pragma once
// `keval run --tasks GLOB` into a folder that already holds results judges only the selected
// tasks, but results.jsonl and summary.json describe the whole folder: the earlier lines of the
// tasks outside the selection (their evaluations are still in keval.db) are kept beside this
// run's. A run with no --tasks covers every task and replaces the files whole.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "report/submission_result.h"

namespace keval {

// The results in `results_file` (an earlier run's results.jsonl) whose task is not among
// `covered_tasks`, in file order; none when the file is missing. A line that is no result
// (a run cut short mid-line) is skipped.
std::vector<SubmissionResult> earlier_results_outside(const std::filesystem::path& results_file,
                                                      const std::set<std::string>& covered_tasks);

}  // namespace keval
