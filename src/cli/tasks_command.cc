// keval tasks list|show: what a suite holds.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "suite/adapters/peer_source.h"
#include "common/near_name.h"
#include "suite/suite.h"
#include "suite/task_json.h"

namespace keval {
namespace {

int list_tasks(const Suite& suite, bool json) {
  if (json) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& task : suite.tasks()) tasks.push_back(task_json(task, false));
    std::cout << tasks.dump(2) << "\n";
    return 0;
  }
  size_t name_width = 6, category_width = 10;
  for (const auto& task : suite.tasks()) {
    name_width = std::max(name_width, task.name.size() + 2);
    category_width = std::max(category_width, task.category.size() + 2);
  }
  const int w = static_cast<int>(name_width), cw = static_cast<int>(category_width);
  std::cout << std::left << std::setw(w) << "task" << std::setw(6) << "track" << std::setw(cw)
            << "category" << std::setw(5) << "diff" << std::setw(7) << "cases" << "dtypes\n";
  for (const auto& task : suite.tasks()) {
    std::string dtypes;
    for (const auto& d : task.dtypes) dtypes += (dtypes.empty() ? "" : ",") + d;
    std::cout << std::setw(w) << task.name << std::setw(6) << task.track << std::setw(cw)
              << task.category << std::setw(5) << task.difficulty << std::setw(7)
              << task.cases.size() << dtypes << "\n";
  }
  size_t real = std::count_if(suite.tasks().begin(), suite.tasks().end(),
                              [](const Task& t) { return t.track == "real"; });
  std::cout << suite.tasks().size() << " tasks (" << suite.tasks().size() - real << " ops, " << real
            << " real)\n";
  return 0;
}

void print_tolerance(const std::string& indent, const std::string& dtype, const Tolerance& t) {
  std::cout << indent << dtype << ": atol " << t.atol << ", rtol " << t.rtol << " (" << t.reason << ")\n";
}

int show_task(const Suite& suite, const std::string& name, bool json) {
  const Task* task = suite.find(name);
  if (!task) {
    std::cerr << "keval: unknown task \"" << name << "\"" << did_you_mean(name, suite.names()) << "\n";
    return 1;
  }
  if (json) {
    std::cout << task_json(*task, true).dump(2) << "\n";
    return 0;
  }
  std::cout << task->name << " (v" << task->version << ", track " << task->track << ", "
            << task->category << ", difficulty " << task->difficulty << ")\n"
            << "entry: " << task->signature << "\n\n" << task->instruction << "\n\ncases:\n";
  for (const auto& c : task->cases) {
    std::cout << "  " << c.name << (c.small ? " [small]" : "") << " " << c.params.dump() << "\n";
    for (const auto& [dtype, t] : c.tolerance) print_tolerance("    tolerance ", dtype, t);
  }
  std::cout << "tolerance:\n";
  for (const auto& [dtype, t] : task->tolerance) print_tolerance("  ", dtype, t);
  std::cout << "flops: " << task->flops << "\nbytes: " << task->bytes << "\n";
  return 0;
}

}  // namespace

void add_tasks_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("tasks", "list or show the tasks of a suite");
  cmd->require_subcommand(1);
  auto suite_dir = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* list = cmd->add_subcommand("list", "one line per task");
  list->add_option("--suite", *suite_dir, "suite folder")->required();
  list->add_flag("--json", *json, "print a JSON array of the tasks");
  auto* show = cmd->add_subcommand("show", "one task in full");
  show->add_option("name", *name, "task name")->required();
  show->add_option("--suite", *suite_dir, "suite folder")->required();
  show->add_flag("--json", *json, "print the task as a JSON object");
  list->callback([=, &action] { action = [=] { return list_tasks(Suite::load(resolve_suite_folder(*suite_dir)), *json); }; });
  show->callback([=, &action] {
    action = [=] { return show_task(Suite::load(resolve_suite_folder(*suite_dir)), *name, *json); };
  });
}

}  // namespace keval
