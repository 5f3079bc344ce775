#pragma once
// The short human-readable table printed at the end of a run.
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

void print_result_table(std::ostream& out, const std::vector<SubmissionResult>& results,
                        const nlohmann::json& summary);

}  // namespace keval
