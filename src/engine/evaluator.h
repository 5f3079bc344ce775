#pragma once
// Runs one submission through its jobs: the candidate child, then the reference comparison.
#include "engine/job_plan.h"
#include "engine/job_runner.h"
#include "judge/evaluation_facts.h"

namespace keval {

// `dirs.code_file()` must hold the submission's code. Saved outputs are removed afterwards.
EvaluationFacts evaluate_submission(JobRunner& runner, const Task& task,
                                    const RunSettings& settings, const JobDirs& dirs);

JobOutcome time_golden(JobRunner& runner, const Task& task, const RunSettings& settings,
                       const JobDirs& dirs);

}  // namespace keval
