#pragma once
// The folders of a run that its reasons and errors name, and what each is called there instead
// (common/machine_paths.h): OUT is ".", the job work root "work", the suite its label, the
// runner "runner", the runner's Python its file name, the cache "cache", the home folder "~".
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "common/machine_paths.h"
#include "engine/settings/run_options.h"
#include "suite/suite.h"

namespace keval {

// `work_root`: where the jobs' folders are ("" = OUT/work, under OUT anyway).
MachinePaths run_paths(const RunOptions& options, const Suite& suite, const std::filesystem::path& work_root = {});

// The same for a run read back (keval rejudge): OUT as it is now, the runner and the Python
// found here; `suite_dir` and `python` are left out where empty.
MachinePaths run_paths(const std::filesystem::path& out, const std::filesystem::path& work_root,
                       const std::filesystem::path& suite_dir, const std::string& suite_label,
                       const std::filesystem::path& python);

// `value` with every string in it made relative: the facts a result is stored with, whose texts
// become reasons again when keval rejudge judges them.
nlohmann::json relative_strings(nlohmann::json value, const MachinePaths& paths);

}  // namespace keval
