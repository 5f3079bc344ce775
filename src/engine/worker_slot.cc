#include "engine/worker_slot.h"

#include <signal.h>

#include <fstream>
#include <sstream>

namespace keval {

// After killing a job's group, how long the zygote may take to report its exit.
constexpr auto kExitGrace = std::chrono::seconds(20);

WorkerSlot::WorkerSlot(RunnerConfig config, nlohmann::json sandbox)
    : config_(std::move(config)), sandbox_(std::move(sandbox)) {}

void WorkerSlot::start() {
  process_ = std::make_unique<RunnerProcess>(config_);
  process_->start();
}

JobOutcome WorkerSlot::run(nlohmann::json request, std::chrono::milliseconds timeout,
                           const MessageHook& on_message) {
  if (fresh_process_ && process_) process_->stop();
  if (!process_ || !process_->running()) start();
  const std::string job = "j" + std::to_string(next_job_++);
  request["job"] = job;
  if (!sandbox_.is_null() && !request.contains("sandbox")) request["sandbox"] = sandbox_;
  request["gpu"] = gpu_;
  JobOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  auto deadline = started + timeout;
  int child_pid = -1;
  try {
    process_->send(request);
    while (true) {
      auto message = process_->read(deadline);
      if (!message) {
        if (outcome.timed_out) {  // the zygote did not report the exit: replace it
          outcome.runner_lost = true;
          process_->stop();
          break;
        }
        outcome.timed_out = true;
        if (child_pid > 0) ::kill(-child_pid, SIGKILL);
        deadline = std::chrono::steady_clock::now() + kExitGrace;
        continue;
      }
      if (message->value("job", "") != job) continue;  // a late line of an earlier job
      const std::string type = message->value("type", "");
      if (type == "started") {
        child_pid = message->value("pid", -1);
      } else if (type == "exit") {
        if (!(*message)["code"].is_null()) outcome.exit_code = (*message)["code"].get<int>();
        if (!(*message)["signal"].is_null()) outcome.signal = (*message)["signal"].get<int>();
        break;
      } else {
        if (type == "done") outcome.done = true;
        if (on_message) {
          // The hook may block while the job waits for the device (a timing job's upgrade, a
          // paused job's resume): that wait is another job's time, not this one's, so it moves
          // the deadline. A job holding the device is bounded by its own deadline.
          const auto before = std::chrono::steady_clock::now();
          on_message(*message);
          if (!outcome.timed_out) deadline += std::chrono::steady_clock::now() - before;
        }
        outcome.messages.push_back(std::move(*message));
      }
    }
  } catch (const HarnessError& e) {
    outcome.runner_lost = true;
    outcome.stderr_tail = std::string("runner lost: ") + e.what();
    if (child_pid > 0) ::kill(-child_pid, SIGKILL);
    process_->stop();
  }
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (request.contains("work_dir")) {
    std::string tail = file_tail(std::filesystem::path(request["work_dir"].get<std::string>()) / "stderr.txt");
    if (!tail.empty()) outcome.stderr_tail = tail;
  }
  return outcome;
}

std::string file_tail(const std::filesystem::path& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  auto size = static_cast<size_t>(in.tellg());
  size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    auto newline = text.find('\n');
    if (newline != std::string::npos) text.erase(0, newline + 1);
  }
  return text;
}

}  // namespace keval
