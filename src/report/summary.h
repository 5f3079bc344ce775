#pragma once
// summary.json: accuracies, speedups, fast_p, verdict counts, per-category figures, environment.
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

nlohmann::json make_summary(const std::vector<SubmissionResult>& results,
                            const nlohmann::json& environment);

}  // namespace keval
