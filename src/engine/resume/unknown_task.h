#pragma once
// The reason a submission for a task the suite does not have is a bad_submission. A .py file
// with no "# task: NAME" line takes its task from its file name ("my_softmax.py" is task
// "my_softmax"), which surprises: its reason names the file, the tasks it could be and the
// header that names one.
#include <string>
#include <vector>

#include "submission/submission.h"

namespace keval {

// One line: `ORIGIN: unknown task "X"` and a hint (near task names; for a .py named after no
// task, the "# task: NAME" line).
std::string unknown_task_reason(const Submission& submission, const std::vector<std::string>& task_names);

}  // namespace keval
