#pragma once
// Runs one job request to its end. The seam between the evaluation logic and real processes:
// WorkerSlot implements it over a runner zygote; tests use fakes.
#include <chrono>
#include <functional>

#include <nlohmann/json.hpp>

#include "facts/job_outcome.h"

namespace keval {

// Sees each of a job's messages as it arrives, before the job ends: lets the caller answer a
// job that waits on it (the timing job asking for its device alone: device_gate_alone.h).
using MessageHook = std::function<void(const nlohmann::json& message)>;

class JobRunner {
 public:
  virtual ~JobRunner() = default;
  // Sends `request` (op "run" or "probe"; the runner fills in "job"), waits for the child's exit,
  // killing the child's process group when `timeout` passes. Never throws for a failed job.
  virtual JobOutcome run(nlohmann::json request, std::chrono::milliseconds timeout,
                         const MessageHook& on_message) = 0;
  JobOutcome run(nlohmann::json request, std::chrono::milliseconds timeout) {
    return run(std::move(request), timeout, MessageHook());
  }
};

}  // namespace keval
