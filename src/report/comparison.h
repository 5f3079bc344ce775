#pragma once
// `keval compare`: models or runs side by side, overall and per task, from runs' results.jsonl.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

struct ComparedEntry {
  std::string label;  // the model's name, or the run folder's name; "run:model" when both are needed
  std::vector<SubmissionResult> results;
};

// One entry per model in each run's results (its generation records), or one for the whole run
// when no result names a model. Throws std::runtime_error naming the file (and line) when a
// results.jsonl is missing or broken.
std::vector<ComparedEntry> load_compared_entries(const std::vector<std::filesystem::path>& runs);

// {"entries": [{label, ...sample_figures}], "tasks": {task: {label: {n, passes, best_speedup}}}}.
nlohmann::json comparison_json(const std::vector<ComparedEntry>& entries);

// The same as two Markdown tables: overall, then one row per task.
std::string comparison_markdown(const nlohmann::json& comparison);

}  // namespace keval
