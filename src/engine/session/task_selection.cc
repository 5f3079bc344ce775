#include "engine/session/task_selection.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/near_name.h"

namespace keval {

void check_tasks_glob(const Suite& suite, const std::string& glob, const std::vector<Submission>& submissions) {
  if (glob.empty()) return;
  const std::vector<const Task*> selected = suite.select(glob);
  if (selected.empty()) {
    const auto near = near_names(glob, suite.names());
    throw std::runtime_error("--tasks \"" + glob + "\" matches no task of " + suite.dir().string() +
                             (near.empty() ? std::string(" (keval tasks list shows them)") : " (near: " + comma_joined(near) + ")"));
  }
  std::set<std::string> names;
  for (const Task* task : selected) names.insert(task->name);
  const bool any = std::any_of(submissions.begin(), submissions.end(),
                               [&](const Submission& s) { return names.count(s.task) > 0; });
  if (!any && !submissions.empty()) {
    std::set<std::string> tasks;
    for (const auto& s : submissions) tasks.insert(s.task);
    throw std::runtime_error("--tasks \"" + glob + "\" matches no submission's task (the submissions are for: " +
                             comma_joined(std::vector<std::string>(tasks.begin(), tasks.end())) + ")");
  }
}

}  // namespace keval
