#pragma once
// Ctrl-C during `keval run`: the run stops instead of dying with nothing written. While a
// RunInterruption is in scope, the first SIGINT ends the running jobs and starts no new one:
// their submissions are left unjudged (never stored, so running the same command again judges
// them), and the run goes on to write results.jsonl and summary.json for what finished. A
// second SIGINT ends keval at once, as it did before.
//
// Runner processes lead their own process groups (runner_exec.cc), so a terminal's Ctrl-C
// reaches keval alone; each worker slot sees the request within kInterruptCheck.
#include <chrono>

#include "engine/runner/runner_process.h"

namespace keval {

// How often a worker slot waiting for its job's messages looks whether the run was interrupted.
constexpr auto kInterruptCheck = std::chrono::milliseconds(100);

// The reason an unjudged submission carries in summary.json's harness_errors.
constexpr const char* kInterruptedReason = "the run was interrupted before it was judged";

class RunInterruption {
 public:
  RunInterruption();   // installs the SIGINT handler
  ~RunInterruption();  // restores the one before and forgets the request
  RunInterruption(const RunInterruption&) = delete;
  RunInterruption& operator=(const RunInterruption&) = delete;
};

// Whether a SIGINT arrived while a RunInterruption was in scope.
bool run_interrupted();

// Thrown instead of starting, or while running, a job once the run is interrupted: a fault of
// no submission, so the scheduler leaves it unjudged.
class RunInterrupted : public HarnessError {
 public:
  RunInterrupted() : HarnessError(kInterruptedReason) {}
};

}  // namespace keval
