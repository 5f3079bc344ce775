#pragma once
// The messages a finished job must hold for its verdict: a check the runner always makes that
// left no message was suppressed, and reading its absence as "nothing found" would fail open.
// Each function names the first message missing, or returns nullopt.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "facts/job_outcome.h"

namespace keval {

// The candidate job re-runs the first call of each case and dtype when that call succeeded.
std::optional<std::string> missing_determinism(const JobOutcome& candidate);

// The reference job compares every call the candidate job reported.
std::optional<std::string> missing_comparison(const JobOutcome& candidate, const JobOutcome& reference);

// The timing job times the submission on each planned (case, dtype), unless it reported why not.
std::optional<std::string> missing_timing(const JobOutcome& timing,
                                          const std::vector<std::pair<std::string, std::string>>& timed_cases);

// The timing job profiles each case it timed the submission on, unless the profile failed
// with an error of its own.
std::optional<std::string> missing_kernel_profile(const JobOutcome& timing);

}  // namespace keval
