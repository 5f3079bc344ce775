#include "cli/mutant_timeout.h"

#include <algorithm>
#include <cmath>

namespace keval {

int mutant_timeout_s(double golden_job_s) {
  const double seconds = std::ceil(kMutantTimeoutGoldenTimes * std::max(0.0, golden_job_s));
  return std::max(kMutantTimeoutFloorS, static_cast<int>(std::min(seconds, 86400.0)));
}

std::map<std::string, int> mutant_timeouts(const std::vector<SubmissionResult>& goldens) {
  std::map<std::string, int> out;
  for (const SubmissionResult& golden : goldens) {
    if (golden.judgement.verdict == Verdict::kTimeout || !golden.job_seconds.is_object()) continue;
    double longest = 0;
    for (const auto& [job, seconds] : golden.job_seconds.items()) {
      if (seconds.is_object()) longest = std::max(longest, seconds.value("wall_s", 0.0));
    }
    if (longest > 0) out[golden.task] = mutant_timeout_s(longest);
  }
  return out;
}

}  // namespace keval
