#pragma once
// The run's environment, as summary.json and the run record show it: the GPU, the software
// versions the probe saw, the device mode, the sandbox. A golden record must fit it.
#include <nlohmann/json.hpp>

#include "common/machine_paths.h"
#include "engine/runner/runner_process.h"
#include "engine/settings/run_settings.h"
#include "engine/settings/sandbox_settings.h"

namespace keval {

// `paths`: the run's folders as its reasons name them (engine/settings/run_paths.h).
nlohmann::json run_environment(const nlohmann::json& probe, const RunSettings& settings,
                               const RunnerConfig& config, const SandboxSettings& sandbox,
                               const MachinePaths& paths);

}  // namespace keval
