#include "engine/runner_process.h"

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

extern char** environ;

namespace keval {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::vector<std::string> runner_environment(const RunnerConfig& config) {
  std::map<std::string, std::string> env;
  for (char** item = environ; *item; ++item) {
    std::string entry(*item);
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  std::string path = config.runner_dir.string();
  env["PYTHONPATH"] = env.count("PYTHONPATH") ? path + ":" + env["PYTHONPATH"] : path;
  env["PYTHONUNBUFFERED"] = "1";
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  if (config.interpret) env["TRITON_INTERPRET"] = "1";
  else env.erase("TRITON_INTERPRET");
  for (const auto& [key, value] : config.extra_env) env[key] = value;
  std::vector<std::string> out;
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

}  // namespace

RunnerProcess::RunnerProcess(RunnerConfig config) : config_(std::move(config)) {}

RunnerProcess::~RunnerProcess() { stop(); }

void RunnerProcess::start(std::chrono::seconds ready_timeout) {
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw HarnessError(std::string("cannot create pipes: ") + std::strerror(errno));
  }
  std::vector<std::string> env = runner_environment(config_);
  std::vector<char*> envp;
  for (auto& item : env) envp.push_back(item.data());
  envp.push_back(nullptr);
  std::string module_flag = "-m", module = "keval_runner";
  std::vector<std::string> wrapper = config_.wrapper;
  std::vector<char*> argv;
  for (auto& part : wrapper) argv.push_back(part.data());
  for (char* part : {config_.python.data(), module_flag.data(), module.data()}) argv.push_back(part);
  argv.push_back(nullptr);
  std::string log = config_.log_path.empty() ? "/dev/null" : config_.log_path.string();

  pid_ = ::fork();
  if (pid_ < 0) throw HarnessError(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::setpgid(0, 0);  // a signal to the controller's group must not reach the runner's children
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd >= 0) ::dup2(log_fd, 2);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
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
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    ::usleep(20000);
  }
  close_fd(from_runner_);
  pid_ = -1;
  buffer_.clear();
}

}  // namespace keval
