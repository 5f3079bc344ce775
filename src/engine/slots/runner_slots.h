#pragma once
// The worker slots a run hands its evaluations to, as the scheduler and run_session see them:
// each slot a JobRunner on one GPU. SlotPool is the real one (runner zygotes); a test fills a
// WarmEngine with fake slots and runs a whole session in memory, no Python started.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/runner/job_runner.h"
#include "engine/settings/sandbox_settings.h"

namespace keval {

class RunnerSlots {
 public:
  virtual ~RunnerSlots() = default;
  virtual size_t size() const = 0;
  virtual JobRunner& slot(size_t i) = 0;
  virtual int gpu_of(size_t i) const = 0;
  // The run's GPUs (one entry on the CPU).
  virtual const std::vector<int>& gpus() const = 0;
  // --sanitize's runner beside slot `i`, else null.
  virtual JobRunner* sanitizer_of(size_t i) const = 0;
  // A later run's sandbox (its deadlines may differ): each slot takes its share of it.
  virtual void resandbox(SandboxSettings& sandbox, const std::string& cache_root) = 0;
  // Asks every runner to end without waiting for it, so their exits overlap.
  virtual void ask_to_leave() = 0;
};

}  // namespace keval
