#pragma once
// The seed (runner/keval_runner/seed.py): one runner process that imports torch and Triton
// once and forks the zygotes of every slot from itself, so a run's slots start in milliseconds
// instead of paying the import each.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>

#include "engine/runner/runner_process.h"

namespace keval {

class RunnerSeed {
 public:
  // Starts the seed and waits for its `ready`. Throws HarnessError.
  explicit RunnerSeed(const RunnerConfig& config,
                      std::chrono::seconds ready_timeout = std::chrono::seconds(180));
  ~RunnerSeed();
  RunnerSeed(const RunnerSeed&) = delete;
  RunnerSeed& operator=(const RunnerSeed&) = delete;

  // Forks a zygote whose stdin, protocol stream and stderr are these descriptors (the caller
  // keeps and closes its own copies). Returns the zygote's pid. Throws HarnessError.
  pid_t spawn(int stdin_fd, int protocol_fd, int log_fd);
  pid_t pid() const { return pid_; }

 private:
  void shut_down();
  nlohmann::json receive(std::chrono::steady_clock::time_point deadline);

  std::mutex mutex_;
  pid_t pid_ = -1;
  int channel_ = -1;
};

// The seed that starts runners like `config`'s (its python, runner and environment), started
// on first use and kept for the controller's life; nullptr where it cannot start (the caller
// then execs a zygote). A seed that fails a spawn is dropped with `drop_seed`.
std::shared_ptr<RunnerSeed> seed_for(const RunnerConfig& config);
void drop_seed(const RunnerConfig& config);

}  // namespace keval
