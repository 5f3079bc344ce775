#include "engine/device_memory.h"

namespace keval {
namespace {

// torch's allocator, the driver, the runtime (a context that could not be made: "CUDA error:
// out of memory" at set_device) and cuBLAS (a handle that could not be made), as seen on the
// H200 with too many slots for a peer suite's inputs.
bool names_out_of_memory(const std::string& text) {
  for (const char* sign : {"OutOfMemoryError", "CUDA out of memory", "CUDA_ERROR_OUT_OF_MEMORY",
                           "CUDA error: out of memory", "cudaErrorMemoryAllocation", "CUBLAS_STATUS_ALLOC_FAILED"}) {
    if (text.find(sign) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool ran_out_of_device_memory(const JobOutcome& job) {
  for (const ErrorMessage& error : job.messages_of<ErrorMessage>()) {
    if (names_out_of_memory(error.error_kind) || names_out_of_memory(error.error_class) ||
        names_out_of_memory(error.message)) {
      return true;
    }
  }
  // the runner's own allocations (inputs, guard bands, copies) report on stderr and exit
  return !job.done && names_out_of_memory(job.stderr_tail);
}

}  // namespace keval
