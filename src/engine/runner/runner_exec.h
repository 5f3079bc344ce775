#pragma once
// Starting a `python -m keval_runner` process: its environment and its fork and exec.
#include <sys/types.h>

#include <string>
#include <vector>

#include "engine/runner/runner_process.h"

namespace keval {

// Execs the runner with `args` after the module (a zygote with none), `stdin_fd` and
// `stdout_fd` as its fd 0 and 1 (-1: the log) and `log` (appended to) as its fd 2, in a
// process group of its own. The runner gets SIGTERM when keval dies (PR_SET_PDEATHSIG; the
// fork is made on a thread that lives as long as keval, whichever thread calls this).
// Returns its pid; throws HarnessError when it cannot fork.
pid_t exec_runner(const RunnerConfig& config, const std::vector<std::string>& args, int stdin_fd,
                  int stdout_fd, const std::string& log);

}  // namespace keval
