#include "engine/runner/worker_slot.h"

#include "submission/utf8.h"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <utility>
#include <sstream>

#include "engine/runner/run_interruption.h"

namespace keval {

// After killing a job's group, how long the zygote may take to report its exit.
constexpr auto kExitGrace = std::chrono::seconds(20);

namespace {

// A pid of 1 or less is no job's group: kill(-1) would signal every process we may signal.
void kill_group(long long pid) {
  if (pid > 1) ::kill(-static_cast<pid_t>(pid), SIGKILL);
}

}  // namespace

WorkerSlot::WorkerSlot(RunnerConfig config, nlohmann::json sandbox)
    : config_(std::move(config)), sandbox_(std::move(sandbox)) {}

void WorkerSlot::start() {
  process_ = std::make_unique<RunnerProcess>(config_);
  process_->start();
}

JobOutcome WorkerSlot::run(nlohmann::json request, std::chrono::milliseconds timeout,
                           const MessageHook& on_message) {
  if (run_interrupted()) throw RunInterrupted();
  if (fresh_process_ && process_) process_->stop();
  if (!process_ || !process_->running()) start();
  const std::string job = "j" + std::to_string(next_job_++);
  request["job"] = job;
  if (!sandbox_.is_null() && !request.contains("sandbox")) request["sandbox"] = sandbox_;
  request["gpu"] = gpu_;
  JobOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  auto deadline = started + timeout;
  long long child_pid = 0;
  bool started_seen = false;
  bool interrupted = false;
  try {
    process_->send(request);
    while (true) {
      // read in short stretches: an interrupted run (run_interruption.h) ends its jobs soon
      auto message = process_->read(std::min(deadline, std::chrono::steady_clock::now() + kInterruptCheck));
      if (!message && run_interrupted()) {
        interrupted = true;
        break;
      }
      if (!message && std::chrono::steady_clock::now() < deadline) continue;
      if (!message) {
        if (outcome.timed_out) {  // the zygote did not report the exit: replace it
          outcome.runner_lost = true;
          process_->stop();
          break;
        }
        outcome.timed_out = true;
        kill_group(child_pid);
        deadline = std::chrono::steady_clock::now() + kExitGrace;
        continue;
      }
      const auto named = message->find("job");
      if (named == message->end() || *named != job) continue;  // a late line of an earlier job
      // Parsed as it arrives: a message that does not parse is kept as it came, and the judge
      // fails closed on it (fact_integrity.h); nothing here reads it or acts on it.
      const Parsed<RunnerMessage> parsed = parse_runner_message(*message);
      if (!parsed.message) {
        const auto type = message->find("type");
        const bool ended = type != message->end() && *type == "exit";
        outcome.messages.push_back(std::move(*message));
        if (ended) break;  // the job ended all the same
        continue;
      }
      if (const auto* child = std::get_if<StartedMessage>(&*parsed.message)) {
        // the zygote's, sent once before any of the child's
        if (!std::exchange(started_seen, true)) child_pid = child->pid;
      } else if (const auto* exit = std::get_if<ExitMessage>(&*parsed.message)) {
        if (exit->code) outcome.exit_code = static_cast<int>(*exit->code);
        if (exit->signal) outcome.signal = static_cast<int>(*exit->signal);
        break;
      } else {
        if (std::holds_alternative<DoneMessage>(*parsed.message)) outcome.done = true;
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
    kill_group(child_pid);
    process_->stop();
  }
  if (interrupted) {
    kill_group(child_pid);  // the zygote reports its exit to no one: it leaves with the run
    throw RunInterrupted();
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
  return with_invalid_utf8_replaced(text);  // the submission's bytes, bound for JSON
}

}  // namespace keval
