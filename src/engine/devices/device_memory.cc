#include "engine/devices/device_memory.h"

namespace keval {

bool ran_out_of_device_memory(const JobOutcome& job) {
  for (const ErrorMessage& error : job.messages_of<ErrorMessage>()) {
    if (error.out_of_memory) return true;
    if (error.error_kind == "OutOfMemoryError" && error.device_free_share &&
        *error.device_free_share < kCrowdedFreeShare) {
      return true;
    }
  }
  return false;
}

}  // namespace keval
