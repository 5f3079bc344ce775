#pragma once
// Where a run's job folders go. Jobs running as another uid must reach their folders: when
// --out sits below a folder others cannot enter (a 0700 home or temp dir), they go to a fresh
// folder under /var/tmp/keval-work instead of OUT/work.
#include <filesystem>

#include "engine/settings/sandbox_settings.h"

namespace keval {

// OUT/work, or the fallback (created, its warning added to `sandbox`).
std::filesystem::path job_work_root(const std::filesystem::path& out, SandboxSettings& sandbox);

// A folder every uid can traverse that outlives the runs of one process (keval serve's lanes
// keep their shared device gates' hold files there): OUT/work when others can reach it, else
// /var/tmp/keval-work/<pid>-<name>. Created.
std::filesystem::path lasting_work_folder(const std::filesystem::path& out, const std::string& name);

// Removes the fallback folder at the end of the run, so it leaves no litter; OUT/work stays.
void remove_fallback_work_root(const std::filesystem::path& work_root, const std::filesystem::path& out);

}  // namespace keval
