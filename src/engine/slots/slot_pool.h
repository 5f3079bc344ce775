#pragma once
// The run's warm worker slots: --jobs per GPU (or on the CPU), no more than there is work for,
// started in parallel (each imports torch once). Each slot's uid is leased for the run, so a
// concurrent run never kills our jobs' processes. With --sanitize each slot has a runner under
// compute-sanitizer beside it.
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/runner/sanitized_runner.h"
#include "engine/runner/worker_slot.h"
#include "engine/settings/run_options.h"
#include "engine/settings/sandbox_settings.h"
#include "engine/slots/runner_slots.h"
#include "engine/slots/uid_lease.h"

namespace keval {

class SlotPool : public RunnerSlots {
 public:
  // `first` is the probe's slot, already started. `sandbox` gets the leased uids, or loses the
  // uid switch (with a warning) when too few are free.
  SlotPool(std::unique_ptr<WorkerSlot> first, const RunOptions& options, const RunnerConfig& config,
           const nlohmann::json& probe, const std::string& device, size_t work_items,
           SandboxSettings& sandbox, const std::string& cache_root, std::ostream& log);

  // Every runner is asked to leave first, so they tear down side by side, not one by one.
  ~SlotPool() override { ask_to_leave(); }
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;

  // Closes every runner's stdin without waiting (WorkerSlot::ask_to_leave): once the work is
  // done, their exits (each a CUDA teardown) overlap each other and the run's last writes.
  void ask_to_leave() override;

  // The pool's leased uids go into `sandbox` too.
  void resandbox(SandboxSettings& sandbox, const std::string& cache_root) override;

  size_t size() const override { return slots_.size(); }
  JobRunner& slot(size_t i) override { return *slots_.at(i); }
  int gpu_of(size_t i) const override { return slots_.at(i)->gpu(); }
  const std::vector<int>& gpus() const override { return gpus_; }
  JobRunner* sanitizer_of(size_t i) const override { return i < sanitizers_.size() ? sanitizers_[i].get() : nullptr; }

 private:
  // The leased uids into `sandbox`, or no uid switch (with a warning) where none were leased.
  void apply_lease(SandboxSettings& sandbox) const;
  void start_sanitizers(const RunOptions& options, const RunnerConfig& config, const std::string& device,
                        std::ostream& log);

  std::vector<int> gpus_;
  std::optional<UidLease> uid_lease_;  // outlives the slots: their jobs run as its uids
  std::vector<std::unique_ptr<WorkerSlot>> slots_;
  std::vector<std::unique_ptr<WorkerSlot>> sanitizer_slots_;
  std::vector<std::unique_ptr<SanitizedRunner>> sanitizers_;  // by slot, with --sanitize
};

}  // namespace keval
