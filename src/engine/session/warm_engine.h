#pragma once
// What one run starts and the next may reuse: the probed device and the warm worker slots.
// keval serve keeps one across its batches, so a batch pays neither a probe nor starting its
// slots (each a Python with torch imported); `keval run` keeps none.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/devices/gpu_gates.h"
#include "engine/slots/runner_slots.h"

namespace keval {

struct WarmEngine {
  std::string device;     // what the probe resolved: "cuda" or "cpu"
  nlohmann::json probe;   // the runner's probe facts
  std::unique_ptr<RunnerSlots> pool;  // null until a run has started one (SlotPool, or a test's fakes)
  std::shared_ptr<GpuGates> gates;  // shared with other engines on the same GPUs (null: each run its own)
  bool started() const { return pool != nullptr; }
};

}  // namespace keval
