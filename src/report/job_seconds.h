#pragma once
// Where an evaluation's time went: each job's wall time and the runner's phase seconds
// (results.jsonl `job_seconds`; bench/job_seconds.py and the throughput benches read it).
#include <nlohmann/json.hpp>

#include "facts/evaluation_facts.h"

namespace keval {

// {"candidate": {"wall_s": 3.1, "phases": {"load": 0.4, "calls": 1.9, ...}}, "reference": ...};
// jobs that did not run are left out.
nlohmann::json job_seconds(const EvaluationFacts& facts);

}  // namespace keval
