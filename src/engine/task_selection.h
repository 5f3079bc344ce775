#pragma once
// `--tasks GLOB` must select something: a glob that matched no task, or no submission's task,
// used to end quietly with "0 submissions".
#include <cstddef>
#include <string>
#include <vector>

#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

// Throws std::runtime_error (one line, naming the near task names or the submissions' tasks)
// when `glob` is set and selects no task, or none of `submissions` (`selected_submissions`
// of them were selected).
void check_tasks_glob(const Suite& suite, const std::string& glob, const std::vector<Submission>& submissions,
                      size_t selected_submissions);

}  // namespace keval
