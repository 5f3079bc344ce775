#pragma once
// A keval Python tool that is never part of a judged job (`python -m keval_generate ...`), run
// with the runner's interpreter and the runner folder on PYTHONPATH, its stdout and stderr
// passed through, so its progress and one-line errors reach the user as it prints them.
#include <string>
#include <vector>

namespace keval {

// Runs `python -m module args...` and returns its exit status (128 + N when signal N ended it).
// While it runs, SIGINT, SIGTERM and SIGHUP are passed on to the tool, which leads its own
// process group: a terminal's Ctrl-C and a `kill -INT` of keval reach it once, through keval,
// and it stops cleanly and keeps what it has stored. The tool gets SIGTERM when keval dies
// (PR_SET_PDEATHSIG), so a `kill -9` of keval stops it too.
// Throws std::runtime_error when it cannot start.
int run_python_tool(const std::string& module, const std::vector<std::string>& args);

}  // namespace keval
