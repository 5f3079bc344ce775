#include "engine/jobs/evaluator.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "engine/devices/device_gate_alone.h"
#include "engine/devices/device_gate_share.h"
#include "engine/devices/device_memory.h"
#include "judge/judge.h"

namespace keval {
namespace {

// The reference comparison is only worth running when some call produced outputs.
bool has_successful_call(const JobOutcome& candidate) {
  const auto calls = candidate.messages_of<CallMessage>();
  return std::any_of(calls.begin(), calls.end(), [](const CallMessage& call) { return call.ok; });
}

}  // namespace

JudgePolicy judge_policy(const Task& task, const RunSettings& settings) {
  JudgePolicy policy{task.inplace, task.require_kernel};
  policy.min_own_gpu_share = settings.min_own_gpu_share;
  policy.check_determinism = settings.check_determinism;
  policy.check_hidden_work = !settings.own_variants;
  policy.precision = task.precision;
  // what timing_request asks the timing job for
  policy.profile_kernels = settings.checks.profile_kernels && settings.device == "cuda" && task.require_kernel;
  for (const auto& planned : timed_cases(task, settings)) {
    if (planned["seeds"].empty()) continue;  // the runner skips a case without seeds
    policy.timed_cases.emplace_back(planned["name"].get<std::string>(), planned["dtype"].get<std::string>());
  }
  return policy;
}

EvaluationFacts evaluate_submission(JobRunner& runner, const Task& task,
                                    const RunSettings& settings, const JobDirs& dirs,
                                    DeviceGate* device_gate, JobRunner* sanitizer, EvaluationGate* evaluation_gate,
                                    std::vector<IntrospectionUse> harness_reach) {
  dirs.create();
  const std::chrono::seconds timeout = settings.timeout_for(task.name);
  EvaluationFacts facts;
  facts.harness_reach = std::move(harness_reach);  // judged tampering: no sanitizer or timing job
  // Correctness jobs share the device; each takes its share anew, so a waiting timing job
  // gets the device between two of them.
  // Requests carry the device gate's hold file: while a timing job waits or measures, a job
  // pauses at its next call and gives back its share (device_gate_share.h).
  auto with_hold = [&](nlohmann::json request) {
    if (device_gate && !device_gate->hold_file().empty()) request["device_hold"] = device_gate->hold_file().string();
    return request;
  };
  // A job that ran out of GPU memory beside the other slots' jobs runs once more with the
  // device alone (device_memory.h). The request has no hold file and no gate then, so the job
  // never pauses for its own hold.
  auto again_alone = [&](JobRunner& on, const nlohmann::json& request, const JobOutcome& first) {
    const auto asked = std::chrono::steady_clock::now();
    JobOutcome again;
    double waited = 0;
    {
      // every other evaluation on the GPU ended: their memory is free
      EvaluationGateAlone turn(evaluation_gate);
      std::lock_guard<DeviceGate> alone(*device_gate);
      waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
      again = on.run(request, timeout);
    }
    again.lease_wait_s = first.lease_wait_s + waited;
    again.retried_alone = true;
    // The other slots were the cause only if it fits alone: then fewer evaluations at once on
    // this GPU from now on. A job that runs out alone too needs more than the GPU has (a
    // TritonBench-T input of 64 GiB); fewer at once would only slow the rest.
    if (evaluation_gate && !ran_out_of_device_memory(again)) evaluation_gate->shrink();
    return again;
  };
  auto shared_run = [&](JobRunner& on, const nlohmann::json& request) {
    if (!device_gate) return on.run(request, timeout);
    JobOutcome outcome;
    {
      DeviceGateShare share(*device_gate, request["work_dir"].get<std::string>());
      outcome = on.run(with_hold(request), timeout,
                       [&share](const nlohmann::json& message) { share.on_message(message); });
      outcome.lease_wait_s = share.waited_s();
    }
    return ran_out_of_device_memory(outcome) ? again_alone(on, request, outcome) : outcome;
  };
  facts.candidate = shared_run(runner, candidate_request(task, settings, dirs.code_file(), dirs));
  if (facts.candidate.done && has_successful_call(facts.candidate)) {
    facts.reference = shared_run(runner, reference_request(task, settings, dirs));
  }
  std::error_code ignored;
  std::filesystem::remove_all(dirs.outputs(), ignored);
  const JudgePolicy policy = judge_policy(task, settings);
  if (sanitizer && judge(facts, policy).verdict == Verdict::kPass) {
    facts.sanitizer = shared_run(*sanitizer, sanitizer_request(task, settings, dirs.code_file(), dirs));
    std::filesystem::remove_all(dirs.root / "sanitizer" / "outputs", ignored);
  }
  // Only a submission that is correct so far is worth GPU time. The timing job shares the
  // device while it sets up and has it alone while it measures (device_gate_alone.h).
  if (settings.timing.enabled && judge(facts, policy).verdict == Verdict::kPass) {
    const nlohmann::json plain = timing_request(task, settings, dirs.code_file(), dirs);
    if (device_gate) {
      nlohmann::json request = with_hold(plain);
      request["device_gate"] = true;
      {
        DeviceGateAlone alone(*device_gate, request["work_dir"].get<std::string>());
        facts.timing = runner.run(request, timeout,
                                  [&alone](const nlohmann::json& message) { alone.on_message(message); });
        facts.timing->lease_wait_s = alone.waited_s();
      }
      if (ran_out_of_device_memory(*facts.timing)) facts.timing = again_alone(runner, plain, *facts.timing);
    } else {
      facts.timing = runner.run(plain, timeout);
    }
  }
  return facts;
}

}  // namespace keval
