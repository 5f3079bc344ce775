#include "engine/evaluator.h"

#include <shared_mutex>

#include "engine/timing_gate.h"
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
                                    DeviceLease* lease, JobRunner* sanitizer) {
  dirs.create();
  EvaluationFacts facts;
  // Correctness jobs share the device; each takes its share anew, so a waiting timing job
  // gets the device between two of them.
  auto shared_run = [&](JobRunner& on, const nlohmann::json& request) {
    std::shared_lock<DeviceLease> share;
    const auto asked = std::chrono::steady_clock::now();
    if (lease) share = std::shared_lock<DeviceLease>(*lease);
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - asked;
    JobOutcome outcome = on.run(request, settings.timeout);
    outcome.lease_wait_s = waited.count();
    return outcome;
  };
  facts.candidate = shared_run(runner, candidate_request(task, settings, dirs.code_file(), dirs));
  if (facts.candidate.done && has_successful_call(facts.candidate)) {
    facts.reference = shared_run(runner, reference_request(task, settings, dirs));
  }
  std::error_code ignored;
  std::filesystem::remove_all(dirs.outputs(), ignored);
  const JudgePolicy policy{task.inplace, task.require_kernel};
  if (sanitizer && judge(facts, policy).verdict == Verdict::kPass) {
    facts.sanitizer = shared_run(*sanitizer, sanitizer_request(task, settings, dirs.code_file(), dirs));
    std::filesystem::remove_all(dirs.root / "sanitizer" / "outputs", ignored);
  }
  // Only a submission that is correct so far is worth GPU time. The timing job shares the
  // device while it sets up and has it alone while it measures (timing_gate.h).
  if (settings.timing.enabled && judge(facts, policy).verdict == Verdict::kPass) {
    nlohmann::json request = timing_request(task, settings, dirs.code_file(), dirs);
    if (lease) {
      request["device_gate"] = true;
      TimingGate gate(*lease, request["work_dir"].get<std::string>());
      facts.timing = runner.run(request, settings.timeout,
                                [&gate](const nlohmann::json& message) { gate.on_message(message); });
      facts.timing->lease_wait_s = gate.waited_s();
    } else {
      facts.timing = runner.run(request, settings.timeout);
    }
  }
  return facts;
}

}  // namespace keval
