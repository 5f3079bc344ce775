#pragma once
// Whether a job failed because the GPU ran out of memory. Worker slots share a GPU, so a job can
// run out because of the other slots' allocations, not its own: the evaluator then runs it
// again with the device alone (evaluator.cc) before any verdict is drawn from it.
#include "facts/job_outcome.h"

namespace keval {

bool ran_out_of_device_memory(const JobOutcome& job);

}  // namespace keval
