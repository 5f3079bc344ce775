#include "engine/evaluator.h"

#include "judge/judge.h"

namespace keval {
namespace {

// The reference comparison is only worth running when some call produced outputs.
bool has_successful_call(const JobOutcome& candidate) {
  for (const auto* call : candidate.of_type("call")) {
    if (call->value("ok", false)) return true;
  }
  return false;
}

}  // namespace

EvaluationFacts evaluate_submission(JobRunner& runner, const Task& task,
                                    const RunSettings& settings, const JobDirs& dirs,
                                    std::mutex* gpu_lease, JobRunner* sanitizer) {
  dirs.create();
  EvaluationFacts facts;
  facts.candidate = runner.run(candidate_request(task, settings, dirs.code_file(), dirs), settings.timeout);
  if (facts.candidate.done && has_successful_call(facts.candidate)) {
    facts.reference = runner.run(reference_request(task, settings, dirs), settings.timeout);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dirs.outputs(), ignored);
  const JudgePolicy policy{task.inplace, task.require_kernel};
  if (sanitizer && judge(facts, policy).verdict == Verdict::kPass) {
    facts.sanitizer = sanitizer->run(sanitizer_request(task, settings, dirs.code_file(), dirs), settings.timeout);
    std::filesystem::remove_all(dirs.root / "sanitizer" / "outputs", ignored);
  }
  // Only a submission that is correct so far is worth GPU time.
  if (settings.timing.enabled && judge(facts, policy).verdict == Verdict::kPass) {
    std::unique_lock<std::mutex> lease;
    if (gpu_lease) lease = std::unique_lock<std::mutex>(*gpu_lease);
    facts.timing = runner.run(timing_request(task, settings, dirs.code_file(), dirs), settings.timeout);
  }
  return facts;
}

}  // namespace keval
