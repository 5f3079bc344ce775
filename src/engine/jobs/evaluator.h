#pragma once
// Runs one submission through its jobs: correctness (candidate), comparison (reference), timing.
#include "engine/devices/device_gate.h"
#include "engine/devices/evaluation_gate.h"
#include "engine/jobs/job_plan.h"
#include "engine/runner/job_runner.h"
#include "facts/evaluation_facts.h"
#include "judge/judge.h"

namespace keval {

// The verdict policy of a task under a run's settings.
JudgePolicy judge_policy(const Task& task, const RunSettings& settings);

// `dirs.code_file()` must hold the submission's code. Correctness jobs pass `device_gate` with
// a share beside other slots' correctness jobs; the timing job (only for submissions that
// passed so far) passes it alone, so timed work never shares the GPU. Saved outputs are removed
// afterwards. With `sanitizer` (--sanitize), a submission correct so far also runs its small
// cases there before timing. A job that runs out of device memory runs again alone, and if it
// then fits it shrinks `evaluation_gate` (the GPU's evaluations at once), if given.
// `harness_reach` (the static scan's) goes into the facts first: a submission it makes
// `tampering` is not worth a sanitizer or timing job.
EvaluationFacts evaluate_submission(JobRunner& runner, const Task& task,
                                    const RunSettings& settings, const JobDirs& dirs,
                                    DeviceGate* device_gate, JobRunner* sanitizer = nullptr,
                                    EvaluationGate* evaluation_gate = nullptr,
                                    std::vector<IntrospectionUse> harness_reach = {});

}  // namespace keval
