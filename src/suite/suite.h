#pragma once
// A suite: the tasks found in the sub-folders of one folder.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "suite/task.h"

namespace keval {

// One or more broken task files; what() holds one line per problem.
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Suite {
 public:
  // Loads every sub-folder holding a task.toml, sorted by name. Throws SuiteError listing every
  // broken task (so one run shows all of them), or when the folder has no task at all.
  static Suite load(const std::filesystem::path& dir);

  const std::vector<Task>& tasks() const { return tasks_; }
  const Task* find(const std::string& name) const;
  std::vector<std::string> names() const;
  // Tasks whose name matches a shell glob ("soft*", "*norm") or any of a comma-separated list
  // of globs ("relu,soft*"); "" matches all.
  std::vector<const Task*> select(const std::string& glob) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::vector<Task> tasks_;
};

}  // namespace keval
