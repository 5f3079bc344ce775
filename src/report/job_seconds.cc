#include "report/job_seconds.h"

namespace keval {
namespace {

nlohmann::json one_job(const JobOutcome& job) {
  nlohmann::json phases = nlohmann::json::object();
  nlohmann::json peak_memory;
  for (const DoneMessage& done : job.messages_of<DoneMessage>()) {
    for (const auto& [name, seconds] : done.phases) phases[name] = seconds;
    if (done.peak_memory) {
      peak_memory = {{"host_bytes", done.peak_memory->host_bytes}, {"gpu_bytes", done.peak_memory->gpu_bytes}};
      if (done.peak_memory->guest_gpu_bytes) peak_memory["guest_gpu_bytes"] = *done.peak_memory->guest_gpu_bytes;
      if (done.peak_memory->io_bytes) peak_memory["io_bytes"] = *done.peak_memory->io_bytes;
    }
  }
  nlohmann::json out = {{"wall_s", job.wall_s}, {"lease_wait_s", job.lease_wait_s}, {"phases", phases}};
  if (!peak_memory.is_null()) out["peak_memory"] = peak_memory;
  if (job.retried_alone) out["retried_alone"] = true;  // its first run ran out of GPU memory
  return out;
}

}  // namespace

nlohmann::json job_seconds(const EvaluationFacts& facts) {
  nlohmann::json out = {{"candidate", one_job(facts.candidate)}};
  if (facts.reference) out["reference"] = one_job(*facts.reference);
  if (facts.timing) out["timing"] = one_job(*facts.timing);
  if (facts.sanitizer) out["sanitizer"] = one_job(*facts.sanitizer);
  return out;
}

}  // namespace keval
