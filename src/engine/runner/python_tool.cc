#include "engine/runner/python_tool.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "engine/runner/runner_process.h"

namespace keval {
namespace {

volatile sig_atomic_t g_tool_pid = 0;

void forward_to_tool(int signal) {
  const pid_t pid = g_tool_pid;
  if (pid > 0) ::kill(pid, signal);  // never 0: that would signal keval's whole group
}

// While the tool runs, SIGINT, SIGTERM and SIGHUP are passed on to it (it stops cleanly and
// writes what finished; keval then exits with its status). The tool leads its own process
// group, so each reaches it once: a terminal's Ctrl-C or a `kill -INT` of keval alike.
// Restores the previous handlers when the tool has ended.
class ForwardedSignals {
 public:
  ForwardedSignals() {
    struct sigaction forward {};
    forward.sa_handler = forward_to_tool;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &forward, &old_int_);
    ::sigaction(SIGTERM, &forward, &old_term_);
    ::sigaction(SIGHUP, &forward, &old_hup_);
  }
  ~ForwardedSignals() {
    g_tool_pid = 0;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_hup_ {};
};

}  // namespace

int run_python_tool(const std::string& module, const std::vector<std::string>& args) {
  const std::string python = choose_python("");
  const std::string runner = find_runner_dir().string();
  const char* old = std::getenv("PYTHONPATH");
  const std::string python_path = runner + (old && *old ? ":" + std::string(old) : "");
  std::vector<std::string> argv = {python, "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);

  ForwardedSignals forwarded;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start " + python + " -m " + module + ": " + std::strerror(errno));
  if (pid == 0) {
    struct sigaction restore {};
    restore.sa_handler = SIG_DFL;
    ::sigaction(SIGINT, &restore, nullptr);
    ::sigaction(SIGTERM, &restore, nullptr);
    ::sigaction(SIGHUP, &restore, nullptr);
    // keval killed outright (kill -9) must not leave the tool asking a model or judging on its
    // own: it gets SIGTERM and stops as if keval had passed one on. (The fork is made on the
    // command's own thread, which lives as long as keval waits here.)
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(143);  // keval died before the line above
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches keval alone, which passes it on
    ::setenv("PYTHONPATH", python_path.c_str(), 1);
    ::execvp(raw[0], raw.data());
    std::fprintf(stderr, "keval: cannot run %s: %s\n", raw[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, a signal finds it in its group
  g_tool_pid = pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace keval
