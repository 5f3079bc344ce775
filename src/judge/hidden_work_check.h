#pragma once
// Work the CUDA events miss (a side stream, a thread) shows as host time to a device-wide
// synchronize above the event time of every sample. A busy CPU inflates host times too: a
// timing process that waits for a core reads a gap with no hidden work behind it.
#include <optional>
#include <string>
#include <vector>

#include "facts/verdict_messages.h"
#include "judge/judge_policy.h"

namespace keval {

// The gap of one contender: the lower quartile of (host - event) over its paired samples.
// Hidden work is in every call; a core taken away now and then delays only some samples.
// nullopt without host samples.
std::optional<double> host_event_gap_ms(const TimingMessage& timing);

// Why `candidate` ran work outside its timed stream, or nullopt when it did not. `controls` are
// the trusted baselines timed in the same loop on the same case: the smallest of their gaps is
// what the machine adds to anyone's, and is taken off the candidate's.
std::optional<std::string> hidden_work(const TimingMessage& candidate, const std::vector<const TimingMessage*>& controls,
                                       const JudgePolicy& policy);

}  // namespace keval
