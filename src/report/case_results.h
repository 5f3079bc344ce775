#pragma once
// Per-case figures of a judged submission: errors, times, speedups over the golden kernel.
#include "engine/job_outcome.h"
#include "judge/evaluation_facts.h"
#include "report/submission_result.h"
#include "suite/task.h"

namespace keval {

// Fills result.cases, the geometric means and the timing method. `golden` is the golden
// kernel's timing job for the task in this run (null when timing is off). Speedups are set
// only for passing submissions.
void fill_case_results(SubmissionResult& result, const Task& task, const EvaluationFacts& facts,
                       const JobOutcome* golden, bool on_gpu);

}  // namespace keval
