#pragma once
// Hands the pending evaluations to the worker slots, one thread per slot: each slot pulls the
// next as it finishes one, so a slow job never holds back the other GPUs.
//
// Each GPU has two gates. Its evaluation gate admits a number of evaluations at once: fewer
// after a job there ran out of memory beside the others (evaluation_gate.h). Its device gate
// admits their jobs: correctness jobs with a share, a timing job alone while it measures, so
// timed work never shares a GPU with another job's kernels (on the CPU, timing shares nothing
// either: wall-clock samples of two interpreters on two cores would disturb each other).
#include <filesystem>
#include <map>
#include <ostream>
#include <vector>

#include "engine/devices/gpu_gates.h"
#include "engine/jobs/job_plan.h"
#include "engine/results/result_recorder.h"
#include "engine/resume/resume_index.h"
#include "engine/settings/run_settings.h"
#include "engine/slots/runner_slots.h"
#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

class EvaluationScheduler {
 public:
  // Job folders go below `work_root`, and so do the device gates' hold files. `shared_gates`:
  // gates other schedulers use at the same time on the same GPUs (null: the run's own).
  EvaluationScheduler(RunnerSlots& pool, std::filesystem::path work_root, GpuGates* shared_gates = nullptr);

  // Evaluates `index.pending` and hands each outcome to `recorder`; an evaluation that throws
  // leaves its submission unjudged. With `batch_variants` (keval sweep's own variants) a task's
  // variants share jobs (variant_batch.h).
  void run(const Suite& suite, const std::vector<Submission>& submissions, const ResumeIndex& index,
           const RunSettings& settings, bool batch_variants, ResultRecorder& recorder);

  // One line per GPU whose evaluation gate shrank after a job ran out of memory.
  void log_memory_limits(std::ostream& log) const;

 private:
  void run_one_per_job(const Suite& suite, const std::vector<Submission>& submissions, const ResumeIndex& index,
                       const RunSettings& settings, ResultRecorder& recorder);
  void run_variant_batches(const Suite& suite, const std::vector<Submission>& submissions,
                           const ResumeIndex& index, const RunSettings& settings, ResultRecorder& recorder);
  JobDirs write_code(const Submission& submission, const std::string& key, const Task& task) const;

  RunnerSlots& pool_;
  std::filesystem::path work_root_;
  GpuGates own_gates_;
  std::map<int, GpuGates::Pair> gates_;  // by GPU
};

}  // namespace keval
