#pragma once
// Where a run's job folders go. Jobs running as another uid must reach their folders: when
// --out sits below a folder others cannot enter (a 0700 home or temp dir), they go to a fresh
// folder under /var/tmp/keval-work instead of OUT/work.
#include <filesystem>

#include "engine/sandbox_settings.h"

namespace keval {

// OUT/work, or the fallback (created, its warning added to `sandbox`).
std::filesystem::path job_work_root(const std::filesystem::path& out, SandboxSettings& sandbox);

// Removes the fallback folder at the end of the run, so it leaves no litter; OUT/work stays.
void remove_fallback_work_root(const std::filesystem::path& work_root, const std::filesystem::path& out);

}  // namespace keval
