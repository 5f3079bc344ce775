#pragma once
// `--tasks GLOB` must select something: a glob that matched no task, or no submission's task,
// used to end quietly with "0 submissions".
#include <string>
#include <vector>

#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

// Throws std::runtime_error (one line, naming the near task names or the submissions' tasks)
// when `glob` is set and selects no task, or no task of any of `submissions`. Before any
// process starts, so a mistyped glob costs nothing.
void check_tasks_glob(const Suite& suite, const std::string& glob, const std::vector<Submission>& submissions);

}  // namespace keval
