#pragma once
// Runs one job request to its end. The seam between the evaluation logic and real processes:
// WorkerSlot implements it over a runner zygote; tests use fakes.
#include <chrono>

#include <nlohmann/json.hpp>

#include "engine/job_outcome.h"

namespace keval {

class JobRunner {
 public:
  virtual ~JobRunner() = default;
  // Sends `request` (op "run" or "probe"; the runner fills in "job"), waits for the child's exit,
  // killing the child's process group when `timeout` passes. Never throws for a failed job.
  virtual JobOutcome run(nlohmann::json request, std::chrono::milliseconds timeout) = 0;
};

}  // namespace keval
