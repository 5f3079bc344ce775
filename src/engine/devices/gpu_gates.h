#pragma once
// The two gates of each GPU (evaluation_gate.h, device_gate.h). A run owns its own; the lanes
// of keval serve share one, so a timing job of one lane has the GPU alone against the other
// lanes' jobs as well.
#include <filesystem>
#include <map>
#include <mutex>

#include "engine/devices/device_gate.h"
#include "engine/devices/evaluation_gate.h"

namespace keval {

class GpuGates {
 public:
  // `hold_folder`: where the device gates' hold files go, a folder that outlives every run
  // using these gates (empty: the hold file the first user of each GPU gives).
  explicit GpuGates(std::filesystem::path hold_folder = {}) : hold_folder_(std::move(hold_folder)) {}

  struct Pair {
    DeviceGate* device;
    EvaluationGate* evaluation;
  };
  // The gates of `gpu`, made on first use; its device gate's hold file is in the hold folder,
  // else `hold_file`. The references stay valid as long as this object.
  Pair of(int gpu, const std::filesystem::path& hold_file);

 private:
  std::filesystem::path hold_folder_;
  std::mutex mutex_;
  std::map<int, DeviceGate> device_;
  std::map<int, EvaluationGate> evaluation_;
};

}  // namespace keval
