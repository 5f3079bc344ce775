#include "engine/device_memory.h"

namespace keval {
namespace {

bool names_out_of_memory(const std::string& text) {
  return text.find("OutOfMemoryError") != std::string::npos ||
         text.find("CUDA out of memory") != std::string::npos ||
         text.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos;
}

}  // namespace

bool ran_out_of_device_memory(const JobOutcome& job) {
  for (const nlohmann::json* error : job.of_type("error")) {
    if (names_out_of_memory(error->value("error_kind", "")) ||
        names_out_of_memory(error->value("error_class", "")) ||
        names_out_of_memory(error->value("message", ""))) {
      return true;
    }
  }
  // the runner's own allocations (inputs, guard bands, copies) report on stderr and exit
  return !job.done && names_out_of_memory(job.stderr_tail);
}

}  // namespace keval
