#pragma once
// Per-case figures of a judged submission: errors, times, speedups over the golden kernel.
#include "engine/devices/ceilings.h"
#include "engine/results/golden_record.h"
#include "facts/evaluation_facts.h"
#include "facts/job_outcome.h"
#include "report/submission_result.h"
#include "suite/task.h"

namespace keval {

// Fills result.cases, the geometric means and the timing method from the timing job's
// samples: the submission's ("candidate") against `baseline` ("golden", "eager", "compile");
// every other baseline's median goes to CaseResult::baseline_ms. Speedups are set only for
// passing submissions; achieved GB/s and TFLOP/s only on the GPU.
// With `recorded` (a golden record) the "golden" baseline comes from it instead of samples.
void fill_case_results(SubmissionResult& result, const Task& task, const EvaluationFacts& facts,
                       const std::string& baseline, bool on_gpu, const Ceilings* ceilings,
                       const GoldenRecord* recorded = nullptr);

}  // namespace keval
