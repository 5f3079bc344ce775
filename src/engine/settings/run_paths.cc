#include "engine/settings/run_paths.h"

#include <cstdlib>

#include "common/cache_root.h"
#include "common/runner_install.h"

namespace keval {

MachinePaths run_paths(const RunOptions& options, const Suite& suite, const std::filesystem::path& work_root) {
  return run_paths(options.out, work_root, suite.dir(), options.suite_label, runner_config(options).python);
}

MachinePaths run_paths(const std::filesystem::path& out, const std::filesystem::path& work_root,
                       const std::filesystem::path& suite_dir, const std::string& suite_label,
                       const std::filesystem::path& python) {
  MachinePaths paths;
  paths.add(out, ".");
  if (!work_root.empty()) paths.add(work_root, "work");  // a fallback under /var/tmp
  if (!suite_dir.empty()) paths.add(suite_dir, suite_label);
  try {
    paths.add(find_runner_dir(), "runner");
  } catch (const std::exception&) {
    // no runner found: nothing of it can be in a reason
  }
  if (python.is_absolute()) paths.add(python, python.filename().string());  // "python", not its venv
  paths.add(keval_cache_root(), "cache");
  if (const char* home = std::getenv("HOME"); home && *home) paths.add(home, "~");
  return paths;
}

nlohmann::json relative_strings(nlohmann::json value, const MachinePaths& paths) {
  if (value.is_string()) return paths.relative(value.get<std::string>());
  if (value.is_structured()) {
    for (auto& item : value) item = relative_strings(std::move(item), paths);
  }
  return value;
}

}  // namespace keval
