#include "engine/settings/run_environment.h"

#include <filesystem>

namespace keval {

nlohmann::json run_environment(const nlohmann::json& probe, const RunSettings& settings,
                               const RunnerConfig& config, const SandboxSettings& sandbox,
                               const MachinePaths& paths) {
  const std::string& device = settings.device;
  nlohmann::json environment = {
      {"gpu", device == "cuda" ? probe.value("gpu_name", nlohmann::json(nullptr)) : nlohmann::json(nullptr)},
      {"gpu_count", probe.value("gpu_count", 0)},
      {"driver", probe.value("driver", nlohmann::json(nullptr))},
      {"torch", probe.value("torch", nlohmann::json(nullptr))},
      {"torch_cuda", probe.value("torch_cuda", nlohmann::json(nullptr))},
      {"triton", probe.value("triton", nlohmann::json(nullptr))},
      {"python", probe.value("python", nlohmann::json(nullptr))},
      // Its file name only ("python3.11"): the version is `python` and the packages that matter
      // are `torch` and `triton`; the folder would only say where this machine keeps its venv,
      // and reasons name the interpreter the same way (engine/settings/run_paths.h).
      {"python_executable", std::filesystem::path(config.python).filename().string()},
      {"keval_version", KEVAL_VERSION},
      {"device_mode", device == "cuda" ? "cuda" : "cpu_interpreter"},
      {"timing_note", device == "cuda" ? "CUDA events, cold L2, launch cover"
                                        : "wall-clock under the Triton interpreter: indicative only"}};
  environment["sandbox"] = sandbox.describe(paths);
  environment["min_own_share"] = settings.min_own_gpu_share;
  return environment;
}

}  // namespace keval
