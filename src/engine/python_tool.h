#pragma once
// A keval Python tool that is never part of a judged job (`python -m keval_generate ...`), run
// with the runner's interpreter and the runner folder on PYTHONPATH, its stdout and stderr
// passed through, so its progress and one-line errors reach the user as it prints them.
#include <string>
#include <vector>

namespace keval {

// Runs `python -m module args...` and returns its exit status (128 + N when signal N ended it).
// While it runs, SIGINT and SIGTERM are ignored here: the terminal's Ctrl-C reaches the tool,
// which stops cleanly and keeps what it has stored. Throws std::runtime_error when it cannot start.
int run_python_tool(const std::string& module, const std::vector<std::string>& args);

}  // namespace keval
