#include "engine/resume/unknown_task.h"

#include <algorithm>

#include "common/near_name.h"
#include "submission/py_file_reader.h"

namespace keval {
namespace {

// Tasks whose name the file name contains ("softmax" in "my_softmax_v2"), then the nearest by
// spelling: up to five.
std::vector<std::string> tasks_it_could_be(const std::string& name, const std::vector<std::string>& task_names) {
  std::vector<std::string> within;
  for (const auto& task : task_names) {
    if (name.find(task) != std::string::npos) within.push_back(task);
  }
  std::ranges::sort(within, [](const auto& a, const auto& b) { return a.size() > b.size(); });  // longest: most specific
  for (const auto& near : near_names(name, task_names)) {
    if (std::ranges::find(within, near) == within.end()) within.push_back(near);
  }
  if (within.size() > 5) within.resize(5);
  return within;
}

}  // namespace

std::string unknown_task_reason(const Submission& submission, const std::vector<std::string>& task_names) {
  const std::string unknown = submission.origin + ": unknown task \"" + submission.task + "\"";
  const bool named_by_file = submission.origin.ends_with(".py") && task_from_header(submission.code).empty();
  if (!named_by_file) return unknown + did_you_mean(submission.task, task_names);
  const auto could_be = tasks_it_could_be(submission.task, task_names);
  return unknown + " (taken from the file name: the file has no \"# task: NAME\" line)" +
         (could_be.empty() ? "" : "; tasks near it: " + comma_joined(could_be)) +
         "; put a \"# task: NAME\" line at the top of the file, or name it TASK.py";
}

}  // namespace keval
