#include "engine/jobs/variant_batch.h"

#include <algorithm>
#include <map>
#include <optional>

#include "engine/devices/device_gate_alone.h"
#include "engine/jobs/job_plan.h"

namespace keval {
namespace {

using nlohmann::json;

bool is_type(const json& message, const char* type) { return message.value("type", "") == type; }

// The stage of a candidate's own failures (loading, its entry, its calls); a timing failure
// belongs to the timing side, as in a timing job.
bool candidate_error(const json& message) {
  const std::string stage = message.value("stage", "");
  return stage == "import" || stage == "entry" || stage == "call";
}

JobOutcome ended_well() {
  JobOutcome job;
  job.done = true;
  job.exit_code = 0;
  return job;
}

}  // namespace

EvaluationFacts variant_facts(const std::vector<json>& messages, const JobOutcome& job, bool reached) {
  EvaluationFacts facts;
  JobOutcome reference = ended_well(), timing = ended_well();
  facts.candidate = reached ? ended_well() : JobOutcome{};
  if (!reached) {  // the job ended in this variant: how it ended, and what it said untagged
    facts.candidate.exit_code = job.exit_code;
    facts.candidate.signal = job.signal;
    facts.candidate.timed_out = job.timed_out;
    facts.candidate.runner_lost = job.runner_lost;
    facts.candidate.stderr_tail = job.stderr_tail;
    for (const json& message : job.messages) {
      if (is_type(message, "error") && !message.contains("variant")) facts.candidate.messages.push_back(message);
    }
  }
  facts.candidate.wall_s = job.wall_s;
  for (const json& message : messages) {
    if (is_type(message, "call") || (is_type(message, "error") && candidate_error(message))) {
      facts.candidate.messages.push_back(message);
    } else if (is_type(message, "compare")) {
      reference.messages.push_back(message);
    } else if (is_type(message, "timing") || is_type(message, "error")) {
      timing.messages.push_back(message);
    }
  }
  facts.reference = std::move(reference);
  if (!timing.messages.empty()) facts.timing = std::move(timing);
  return facts;
}

void evaluate_variant_batch(JobRunner& runner, const Task& task, const RunSettings& settings,
                            const std::vector<std::filesystem::path>& code_files,
                            const std::filesystem::path& work_dir, DeviceGate* device_gate,
                            const VariantDone& done) {
  size_t next = 0;
  for (int batch = 0; next < code_files.size(); ++batch) {
    const std::vector<std::filesystem::path> rest(code_files.begin() + static_cast<long>(next), code_files.end());
    const auto dir = work_dir / ("batch-" + std::to_string(batch));
    std::filesystem::create_directories(dir);
    json request = sweep_request(task, settings, rest, next, dir);
    // each variant gets the run's per-job deadline
    const auto timeout = std::chrono::milliseconds(settings.timeout) * static_cast<long>(rest.size());
    std::map<size_t, std::vector<json>> tagged;
    // A finished variant is handed on when the next one finishes, so the last one can carry the
    // job's `done` (its phases: counted once per job, bench/job_seconds.py); a job killed
    // midway still keeps every variant it finished.
    std::optional<size_t> held;
    size_t reached = next;  // variants [next, reached) finished
    const auto started = std::chrono::steady_clock::now();
    auto on_message = [&](const json& message) {
      if (!message.is_object() || !message.contains("variant") || !message["variant"].is_number_unsigned()) return;
      const size_t k = message["variant"].get<size_t>();
      tagged[k].push_back(message);
      if (!is_type(message, "variant_done") || k != reached) return;  // variants finish in order
      ++reached;
      if (held) {
        JobOutcome so_far = ended_well();
        so_far.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        done(*held, variant_facts(tagged[*held], so_far, true));
      }
      held = k;
    };
    JobOutcome job;
    if (device_gate) {
      if (!device_gate->hold_file().empty()) request["device_hold"] = device_gate->hold_file().string();
      request["device_gate"] = true;
      DeviceGateAlone alone(*device_gate, dir);
      job = runner.run(request, timeout, [&](const json& message) {
        alone.on_message(message);
        on_message(message);
      });
      job.lease_wait_s = alone.waited_s();
    } else {
      job = runner.run(request, timeout, on_message);
    }
    if (held) {
      EvaluationFacts facts = variant_facts(tagged[*held], job, true);
      for (const json* end : job.of_type("done")) facts.candidate.messages.push_back(*end);
      done(*held, std::move(facts));
    }
    if (reached == code_files.size()) break;
    const size_t k = reached;
    EvaluationFacts ended = variant_facts(tagged[k], job, false);
    if (k == next && tagged[k].empty()) {
      // it ended before its first variant (the reference would not load, the sandbox failed):
      // the same would happen again, so every remaining variant gets this end
      for (size_t j = k; j < code_files.size(); ++j) done(j, ended);
      break;
    }
    done(k, std::move(ended));
    next = k + 1;
  }
}

std::vector<EvaluationFacts> evaluate_variant_batch(JobRunner& runner, const Task& task,
                                                    const RunSettings& settings,
                                                    const std::vector<std::filesystem::path>& code_files,
                                                    const std::filesystem::path& work_dir, DeviceGate* device_gate) {
  std::vector<EvaluationFacts> facts(code_files.size());
  evaluate_variant_batch(runner, task, settings, code_files, work_dir, device_gate,
                         [&facts](size_t k, EvaluationFacts f) { facts[k] = std::move(f); });
  return facts;
}

std::vector<std::vector<size_t>> variant_batches(const std::vector<Submission>& submissions,
                                                 const std::vector<size_t>& pending, size_t slots) {
  const size_t wanted_jobs = 2 * std::max<size_t>(slots, 1);
  const size_t size = std::clamp<size_t>((pending.size() + wanted_jobs - 1) / wanted_jobs, 4, 16);
  std::vector<std::string> order;
  std::map<std::string, std::vector<size_t>> by_task;
  for (size_t i : pending) {
    auto [it, inserted] = by_task.try_emplace(submissions[i].task);
    if (inserted) order.push_back(submissions[i].task);
    it->second.push_back(i);
  }
  std::vector<std::vector<size_t>> batches;
  for (const auto& task : order) {
    const auto& all = by_task[task];
    for (size_t start = 0; start < all.size(); start += size) {
      batches.emplace_back(all.begin() + static_cast<long>(start),
                           all.begin() + static_cast<long>(std::min(all.size(), start + size)));
    }
  }
  return batches;
}

}  // namespace keval
