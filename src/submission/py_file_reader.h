#pragma once
// A single .py file as one submission: a `# task: NAME` line among its leading comment lines
// names the task, else the file's name does (TASK.py).

#include <filesystem>
#include <string>
#include <string_view>

#include "submission/submission.h"

namespace keval {

// The task a `# task: NAME` line names among the file's leading comment and blank lines ("" when
// none does).
std::string task_from_header(std::string_view code);

// The task a file name stands for: the name up to its first dot
// ("softmax.py" and "softmax.candidate3.py" are both "softmax").
std::string task_from_file_name(const std::filesystem::path& path);

// id = the file's stem, code = its text (BOM stripped, \r\n -> \n). An empty or
// non-UTF-8 file gives a Submission with `error`. Throws only when unreadable.
Submission read_py_file(const std::filesystem::path& path);

}  // namespace keval
