#pragma once
// The folders of a run that its reasons and errors name, and what each is called there instead
// (common/machine_paths.h): OUT is ".", the job work root "work", the suite its label, the
// runner "runner", the runner's Python its file name, the cache "cache", the home folder "~".
#include <filesystem>

#include "common/machine_paths.h"
#include "engine/run_options.h"
#include "suite/suite.h"

namespace keval {

// `work_root`: where the jobs' folders are ("" = OUT/work, under OUT anyway).
MachinePaths run_paths(const RunOptions& options, const Suite& suite, const std::filesystem::path& work_root = {});

}  // namespace keval
