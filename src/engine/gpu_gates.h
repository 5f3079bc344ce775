#pragma once
// The two gates of each GPU (evaluation_gate.h, device_gate.h). A run owns its own; the lanes
// of keval serve share one, so a timing job of one lane has the GPU alone against the other
// lanes' jobs as well.
#include <filesystem>
#include <map>
#include <mutex>

#include "engine/device_gate.h"
#include "engine/evaluation_gate.h"

namespace keval {

class GpuGates {
 public:
  struct Pair {
    DeviceGate* device;
    EvaluationGate* evaluation;
  };
  // The gates of `gpu`, made on first use; its device gate keeps the hold file it was first
  // given. The references stay valid as long as this object.
  Pair of(int gpu, const std::filesystem::path& hold_file);

 private:
  std::mutex mutex_;
  std::map<int, DeviceGate> device_;
  std::map<int, EvaluationGate> evaluation_;
};

}  // namespace keval
