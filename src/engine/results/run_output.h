#pragma once
// What a run gives back to its command (keval run, validate, sweep, serve's batches).
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"

namespace keval {

struct RunOutput {
  std::vector<SubmissionResult> results;  // in submission order
  nlohmann::json summary;
  // Submissions left unjudged by a fault of keval or the machine ({id, task, origin, reason}):
  // not stored, so the next run judges them; also summary.json's `harness_errors`.
  nlohmann::json harness_errors = nlohmann::json::array();
};

}  // namespace keval
