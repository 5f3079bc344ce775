#include "engine/runner/runner_process.h"

#include "engine/runner/runner_exec.h"
#include "engine/runner/runner_seed.h"
#include "facts/runner_message.h"

#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace keval {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

RunnerProcess::RunnerProcess(RunnerConfig config) : config_(std::move(config)) {}

RunnerProcess::~RunnerProcess() { stop(); }

void RunnerProcess::start(std::chrono::seconds ready_timeout) {
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw HarnessError(std::string("cannot create pipes: ") + std::strerror(errno));
  }
  const std::string log = config_.log_path.empty() ? "/dev/null" : config_.log_path.string();
  pid_ = fork_from_seed(in_pipe[0], out_pipe[1], log);
  forked_ = pid_ > 0;
  if (!forked_) pid_ = exec_runner(config_, {}, in_pipe[0], out_pipe[1], log);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_runner_ = in_pipe[1];
  from_runner_ = out_pipe[0];
  ::signal(SIGPIPE, SIG_IGN);

  auto deadline = std::chrono::steady_clock::now() + ready_timeout;
  try {
    auto message = read(deadline);
    if (!message) throw HarnessError("the runner did not become ready in time");
    const Parsed<RunnerMessage> ready = parse_runner_message(*message);
    if (!ready.message || !std::holds_alternative<ReadyMessage>(*ready.message)) {
      throw HarnessError("the runner's first message was not `ready`: " + message->dump().substr(0, 300) +
                         (ready.fault.empty() ? "" : " (" + ready.fault + ")"));
    }
    ready_ = *message;
  } catch (const HarnessError& e) {
    stop();
    throw HarnessError(std::string(e.what()) + " (python: " + config_.python +
                       ", runner: " + config_.runner_dir.string() + ", log: " + log + ")");
  }
}

pid_t RunnerProcess::fork_from_seed(int stdin_fd, int protocol_fd, const std::string& log) {
  if (!config_.fork_from_seed || !config_.wrapper.empty()) return -1;
  std::shared_ptr<RunnerSeed> seed = seed_for(config_);
  if (!seed) return -1;
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) log_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  pid_t pid = -1;
  try {
    pid = seed->spawn(stdin_fd, protocol_fd, log_fd);
  } catch (const HarnessError&) {
    drop_seed(config_);  // the next start tries a new seed; this one execs its own zygote
  }
  ::close(log_fd);
  return pid;
}

bool RunnerProcess::has_exited() {
  if (forked_) return ::kill(pid_, 0) != 0 && errno == ESRCH;  // the seed reaps its zygotes
  int status = 0;
  return ::waitpid(pid_, &status, WNOHANG) != 0;
}

void RunnerProcess::send(const nlohmann::json& request) {
  std::string line = request.dump() + "\n";
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(to_runner_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HarnessError("the runner stopped reading its requests");
    written += static_cast<size_t>(n);
  }
}

std::optional<nlohmann::json> RunnerProcess::read(std::chrono::steady_clock::time_point deadline) {
  while (true) {
    auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (line.empty()) continue;
      auto parsed = nlohmann::json::parse(line, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object()) {
        throw HarnessError("the runner wrote a line that is not a JSON object: " + line.substr(0, 200));
      }
      return parsed;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd poll_fd = {from_runner_, POLLIN, 0};
    int ready = ::poll(&poll_fd, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) throw HarnessError("poll on the runner failed");
    if (ready <= 0) continue;
    char chunk[65536];
    ssize_t n = ::read(from_runner_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HarnessError("the runner exited unexpectedly");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

void RunnerProcess::ask_to_leave() { close_fd(to_runner_); }  // EOF on stdin asks the zygote to leave

void RunnerProcess::stop(std::chrono::seconds grace) {
  if (pid_ <= 0) return;
  ask_to_leave();
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (!has_exited()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      if (!forked_) {
        int status = 0;
        ::waitpid(pid_, &status, 0);
      }
      break;
    }
    ::usleep(20000);
  }
  close_fd(from_runner_);
  pid_ = -1;
  forked_ = false;
  buffer_.clear();
}

}  // namespace keval
