#include "engine/python_tool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "engine/runner_process.h"

namespace keval {
namespace {

// Restores the previous handlers of SIGINT and SIGTERM when the tool has ended.
class IgnoredSignals {
 public:
  IgnoredSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGTERM, &ignore, &old_term_);
  }
  ~IgnoredSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
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

  IgnoredSignals ignored;
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start " + python + " -m " + module + ": " + std::strerror(errno));
  if (pid == 0) {
    struct sigaction restore {};
    restore.sa_handler = SIG_DFL;
    ::sigaction(SIGINT, &restore, nullptr);
    ::sigaction(SIGTERM, &restore, nullptr);
    ::setenv("PYTHONPATH", python_path.c_str(), 1);
    ::execvp(raw[0], raw.data());
    std::fprintf(stderr, "keval: cannot run %s: %s\n", raw[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace keval
