#pragma once
// Resolves --device and starts the first worker in the matching mode.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/runner/worker_slot.h"

namespace keval {

struct ProbedDevice {
  std::string device;           // "cuda" or "cpu"
  nlohmann::json probe;         // the runner's probe facts
  std::unique_ptr<WorkerSlot> first_slot;  // already started in that mode
};

// `requested`: auto | cpu | cuda. Throws HarnessError when cuda is requested but absent.
ProbedDevice probe_device(const std::string& requested, RunnerConfig config,
                          const std::filesystem::path& work_dir);

}  // namespace keval
