#pragma once
// Whether a job failed because the GPU ran out of memory. Worker slots share a GPU, so a job can
// run out because of the other slots' allocations, not its own: the evaluator then runs it
// again with the device alone (evaluator.cc), once, before any verdict is drawn from it, and
// halves the slots on that GPU if it fits alone.
//
// Only an `error` whose `out_of_memory` the runner set counts: the warden (or a reference job)
// saw the device refuse its own allocation; or a guest's OutOfMemoryError when the warden saw
// the device less than kCrowdedFreeShare free (`device_free_share`): an honest call that ran out
// beside other slots leaves less free than it asked for, a guest that only says so leaves the
// device as empty as it found it. The submission's own words (an exception's text
// it raised, its stderr, a message its process sent) never do: a submission must not get its
// job retried alone or shrink the run's slots by saying "CUDA out of memory".
#include "facts/job_outcome.h"

namespace keval {

// A quarter of the device (35 GiB of an H200).
inline constexpr double kCrowdedFreeShare = 0.25;

bool ran_out_of_device_memory(const JobOutcome& job);

}  // namespace keval
