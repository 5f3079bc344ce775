#include "engine/run_paths.h"

#include <cstdlib>

#include "common/cache_root.h"
#include "common/runner_install.h"

namespace keval {

MachinePaths run_paths(const RunOptions& options, const Suite& suite, const std::filesystem::path& work_root) {
  MachinePaths paths;
  paths.add(options.out, ".");
  if (!work_root.empty()) paths.add(work_root, "work");  // a fallback under /var/tmp
  paths.add(suite.dir(), options.suite_label);
  try {
    paths.add(find_runner_dir(), "runner");
  } catch (const std::exception&) {
    // no runner found: nothing of it can be in a reason
  }
  const std::filesystem::path python = runner_config(options).python;
  if (python.is_absolute()) paths.add(python, python.filename().string());  // "python", not its venv
  paths.add(keval_cache_root(), "cache");
  if (const char* home = std::getenv("HOME"); home && *home) paths.add(home, "~");
  return paths;
}

}  // namespace keval
