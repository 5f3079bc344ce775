#include "suite/suite.h"

#include <fnmatch.h>

#include <algorithm>

#include "suite/task_loader.h"

namespace keval {

Suite Suite::load(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw SuiteError(dir.string() + ": suite folder not found");
  }
  Suite suite;
  suite.dir_ = std::filesystem::absolute(dir);
  std::vector<std::filesystem::path> folders;
  for (const auto& item : std::filesystem::directory_iterator(suite.dir_)) {
    if (item.is_directory() && std::filesystem::exists(item.path() / "task.toml")) {
      folders.push_back(item.path());
    }
  }
  std::sort(folders.begin(), folders.end());
  std::string problems;
  for (const auto& folder : folders) {
    try {
      suite.tasks_.push_back(load_task(folder));
    } catch (const TaskFileError& e) {
      problems += (problems.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  if (!problems.empty()) throw SuiteError(problems);
  if (suite.tasks_.empty()) throw SuiteError(dir.string() + ": no task folders (with task.toml)");
  return suite;
}

const Task* Suite::find(const std::string& name) const {
  for (const auto& task : tasks_) {
    if (task.name == name) return &task;
  }
  return nullptr;
}

std::vector<std::string> Suite::names() const {
  std::vector<std::string> out;
  for (const auto& task : tasks_) out.push_back(task.name);
  return out;
}

std::vector<const Task*> Suite::select(const std::string& glob) const {
  std::vector<std::string> patterns;
  for (size_t start = 0; start <= glob.size();) {
    size_t comma = glob.find(',', start);
    if (comma == std::string::npos) comma = glob.size();
    if (comma > start) patterns.push_back(glob.substr(start, comma - start));
    start = comma + 1;
  }
  std::vector<const Task*> out;
  for (const auto& task : tasks_) {
    bool match = patterns.empty();
    for (const auto& pattern : patterns) match = match || fnmatch(pattern.c_str(), task.name.c_str(), 0) == 0;
    if (match) out.push_back(&task);
  }
  return out;
}

}  // namespace keval
