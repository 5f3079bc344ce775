#pragma once
// One `python -m keval_runner` zygote, spoken to in JSON lines over pipes.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "common/runner_install.h"

namespace keval {

// The runner could not be started or died: a harness failure, not a verdict.
class HarnessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunnerConfig {
  std::string python = "python3";
  std::filesystem::path runner_dir;  // holds the keval_runner package
  bool interpret = false;            // TRITON_INTERPRET=1 (CPU mode)
  std::filesystem::path log_path;    // the zygote's stderr
  std::map<std::string, std::string> extra_env;
  std::vector<std::string> wrapper;  // argv before python (e.g. compute-sanitizer and its flags)
  // Fork the zygote from the seed that imported torch once (runner_seed.h) rather than exec a
  // fresh python; ignored with a wrapper.
  bool fork_from_seed = false;
};

class RunnerProcess {
 public:
  explicit RunnerProcess(RunnerConfig config);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // Spawns the zygote and waits for its `ready` message. Throws HarnessError.
  void start(std::chrono::seconds ready_timeout = std::chrono::seconds(180));
  void send(const nlohmann::json& request);
  // The next message, or nullopt when `deadline` passes first. Throws HarnessError at EOF.
  std::optional<nlohmann::json> read(std::chrono::steady_clock::time_point deadline);
  // Closes the zygote's stdin and waits up to `grace` for it to leave, then kills its group.
  void stop(std::chrono::seconds grace = std::chrono::seconds(5));
  // Closes the zygote's stdin without waiting: several runners then leave side by side, and a
  // later stop() only reaps them.
  void ask_to_leave();
  bool running() const { return pid_ > 0; }
  const nlohmann::json& ready_info() const { return ready_; }

 private:
  // The zygote's pid when the seed forked one (it is then not our child to wait for), else -1.
  pid_t fork_from_seed(int stdin_fd, int protocol_fd, const std::string& log);
  bool has_exited();

  RunnerConfig config_;
  pid_t pid_ = -1;
  bool forked_ = false;
  int to_runner_ = -1;
  int from_runner_ = -1;
  std::string buffer_;
  nlohmann::json ready_;
};

}  // namespace keval
