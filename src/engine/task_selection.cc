#include "engine/task_selection.h"

#include <set>
#include <stdexcept>

#include "common/near_name.h"

namespace keval {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

void check_tasks_glob(const Suite& suite, const std::string& glob, const std::vector<Submission>& submissions,
                      size_t selected_submissions) {
  if (glob.empty()) return;
  if (suite.select(glob).empty()) {
    const auto near = near_names(glob, suite.names());
    throw std::runtime_error("--tasks \"" + glob + "\" matches no task of " + suite.dir().string() +
                             (near.empty() ? std::string(" (keval tasks list shows them)") : " (near: " + joined(near) + ")"));
  }
  if (selected_submissions == 0 && !submissions.empty()) {
    std::set<std::string> tasks;
    for (const auto& s : submissions) tasks.insert(s.task);
    throw std::runtime_error("--tasks \"" + glob + "\" matches no submission's task (the submissions are for: " +
                             joined(std::vector<std::string>(tasks.begin(), tasks.end())) + ")");
  }
}

}  // namespace keval
