#include "engine/devices/gpu_gates.h"

namespace keval {

GpuGates::Pair GpuGates::of(int gpu, const std::filesystem::path& hold_file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [device, made] = device_.try_emplace(gpu);
  if (made) {
    device->second.set_hold_file(hold_folder_.empty() ? hold_file
                                                      : hold_folder_ / ("device-hold-" + std::to_string(gpu)));
  }
  return {&device->second, &evaluation_.try_emplace(gpu).first->second};
}

}  // namespace keval
