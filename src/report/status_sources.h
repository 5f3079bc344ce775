#pragma once
// The goldens' results that `keval validate --status FILE --from R...` writes a STATUS.md
// from: results.jsonl files of earlier validate runs (a later file's result for a task
// replaces an earlier one), and optionally one run's summary.json for the environment.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

struct StatusSources {
  std::vector<SubmissionResult> results;  // one per task, in the order first seen
  nlohmann::json summary = nlohmann::json::object();
  std::string note;  // which files, for the report
};

// Throws std::runtime_error naming the file (and line) that cannot be read.
StatusSources read_status_sources(const std::vector<std::string>& results_files,
                                  const std::string& summary_file);

}  // namespace keval
