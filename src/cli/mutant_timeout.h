#pragma once
// How long a mutant's job may run before it is killed (verdict `timeout`): a mutant that loops
// forever would otherwise hold its worker slot for the device's default job timeout (600 s on
// the CPU), yet a slow task's mutants need more than a fast one's. So each task's limit follows
// its golden's own job time on this machine (docs/mutation.md).
#include <map>
#include <string>
#include <vector>

#include "report/submission_result.h"

namespace keval {

inline constexpr int kMutantTimeoutFloorS = 30;     // start-up and a slow first compile fit in it
inline constexpr int kMutantTimeoutGoldenTimes = 20;  // a correct mutant runs the golden's work, or a few times it

// max(kMutantTimeoutFloorS, kMutantTimeoutGoldenTimes x golden_job_s), in whole seconds up.
int mutant_timeout_s(double golden_job_s);

// {task: seconds} from the goldens' results: each golden's longest job (candidate or
// reference, results.jsonl's job_seconds). A golden with no job time, or killed at its own
// deadline, is left out: its task keeps the run's timeout.
std::map<std::string, int> mutant_timeouts(const std::vector<SubmissionResult>& goldens);

}  // namespace keval
