#pragma once
// The dataset tools written in Python (runner/keval_dataset: Parquet, scikit-learn), run as
// `python -m keval_dataset ARGS` with the runner's interpreter; never part of a judged job.
#include <string>
#include <vector>

namespace keval {

// Runs the tool; prints its output when it succeeds. Throws std::runtime_error with its last
// line (one line naming the file and field) when it fails.
void run_dataset_tool(const std::vector<std::string>& args);

}  // namespace keval
