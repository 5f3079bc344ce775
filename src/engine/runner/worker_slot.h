#pragma once
// A worker slot: one warm runner zygote running one job at a time, restarted if it dies.
#include <memory>

#include "engine/runner/job_runner.h"
#include "engine/runner/runner_process.h"

namespace keval {

class WorkerSlot : public JobRunner {
 public:
  // `sandbox` is this slot's "sandbox" request object (its own uid and caches).
  WorkerSlot(RunnerConfig config, nlohmann::json sandbox = nullptr);
  // Starts the zygote now (so start-up cost is paid once, before the first job).
  void start();
  using JobRunner::run;
  JobOutcome run(nlohmann::json request, std::chrono::milliseconds timeout,
                 const MessageHook& on_message) override;
  void set_sandbox(nlohmann::json sandbox) { sandbox_ = std::move(sandbox); }
  // Benchmark mode: a fresh runner process (a cold `import torch`) for every job, the way
  // harnesses without warm workers pay for each candidate.
  void set_fresh_process_per_job(bool fresh) { fresh_process_ = fresh; }
  // The GPU this slot's jobs use (the request's "gpu").
  void set_gpu(int gpu) { gpu_ = gpu; }
  int gpu() const { return gpu_; }
  // Ends the runner process (a later job starts a new one), waiting up to `grace` for it.
  void stop(std::chrono::seconds grace) {
    if (process_) process_->stop(grace);
  }
  // Asks the runner process to end without waiting for it (RunnerProcess::ask_to_leave).
  void ask_to_leave() {
    if (process_) process_->ask_to_leave();
  }
  const nlohmann::json& ready_info() const { return process_->ready_info(); }

 private:
  RunnerConfig config_;
  std::unique_ptr<RunnerProcess> process_;
  nlohmann::json sandbox_;
  bool fresh_process_ = false;
  int gpu_ = 0;
  int next_job_ = 0;
};

// The last `max_bytes` of a file (a child's stderr), cut at a line start.
std::string file_tail(const std::filesystem::path& path, size_t max_bytes = 2000);

}  // namespace keval
