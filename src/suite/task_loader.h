#pragma once
// Reads and validates one task folder (task.toml + reference.py + golden.py).
#include <filesystem>
#include <stdexcept>

#include "suite/task.h"

namespace keval {

// A broken task file; the message is one line: "path/task.toml:LINE: field: what is wrong".
class TaskFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Task load_task(const std::filesystem::path& task_dir);

}  // namespace keval
