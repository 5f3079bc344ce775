#include "engine/runner/runner_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

extern char** environ;

namespace keval {
namespace {

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

// Every descriptor from `first` up, in a child between fork and exec: the runner, and through
// it each job's guest, would otherwise hold what the controller had open (the log file opened
// above, a pipe of whatever started keval) and could write into it.
void close_descriptors_from(int first) {
  if (::close_range(static_cast<unsigned>(first), ~0U, 0) == 0) return;
  const long most = ::sysconf(_SC_OPEN_MAX);  // a kernel without close_range (before 5.9)
  for (long fd = first; fd < (most > 0 && most < 65536 ? most : 65536); ++fd) ::close(static_cast<int>(fd));
}

// The one thread that forks every runner. A runner's death signal (PR_SET_PDEATHSIG) fires when
// the thread that forked it ends, not its process; slots start and restart their runners on
// threads that end long before keval does (the pool's starters, the scheduler's), and the seed
// one of them starts serves the whole run. This thread lives as long as keval: it is never
// joined and its state is never destroyed, so a runner's signal comes when keval is gone.
class Forker {
 public:
  static Forker& instance() {
    static Forker* forker = new Forker;  // never deleted: exit() must not tear it down under the thread
    return *forker;
  }

  pid_t run(std::function<pid_t()> fork_child) {
    std::packaged_task<pid_t()> task(std::move(fork_child));
    std::future<pid_t> pid = task.get_future();
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
    return pid.get();  // rethrows the fork's HarnessError
  }

 private:
  Forker() { std::thread([this] { serve(); }).detach(); }

  void serve() {
    while (true) {
      std::packaged_task<pid_t()> task;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<pid_t()>> tasks_;
};

}  // namespace

pid_t exec_runner(const RunnerConfig& config, const std::vector<std::string>& args, int stdin_fd,
                  int stdout_fd, const std::string& log) {
  std::vector<std::string> env = runner_environment(config);
  std::vector<char*> envp;
  for (auto& item : env) envp.push_back(item.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = config.wrapper;
  for (const std::string& word : {config.python, std::string("-m"), std::string("keval_runner")}) {
    words.push_back(word);
  }
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  const pid_t controller = ::getpid();
  return Forker::instance().run([&]() -> pid_t {
    const pid_t pid = ::fork();
    if (pid < 0) throw HarnessError(std::string("fork failed: ") + std::strerror(errno));
    if (pid != 0) return pid;
    ::setpgid(0, 0);  // a signal to the controller's group must not reach the runner's children
    // keval killed outright (kill -9, the OOM killer) takes its runners along: the seed ends,
    // and a zygote ends its job and what the job left, as it does when it finds itself orphaned
    // (zygote.py). Kept across the exec of the runner's Python (no set-uid binary).
    // It must also arrive: a blocked mask and an ignored signal survive fork and exec, and keval
    // serve blocks SIGTERM in every thread but the one that waits for it.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(SIGTERM, &default_action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != controller) ::_exit(143);  // keval died before the line above
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(stdin_fd, 0);
    if (log_fd >= 0) ::dup2(log_fd, 2);
    ::dup2(stdout_fd >= 0 ? stdout_fd : 2, 1);
    close_descriptors_from(3);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  });
}

}  // namespace keval
