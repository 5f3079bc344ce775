#include "report/job_seconds.h"

namespace keval {
namespace {

nlohmann::json one_job(const JobOutcome& job) {
  nlohmann::json phases = nlohmann::json::object();
  for (const nlohmann::json* done : job.of_type("done")) {
    auto it = done->find("phases");
    if (it == done->end() || !it->is_object()) continue;
    for (const auto& [name, value] : it->items()) {
      if (value.is_number()) phases[name] = value;  // the child's facts: keep numbers only
    }
  }
  nlohmann::json out = {{"wall_s", job.wall_s}, {"lease_wait_s", job.lease_wait_s}, {"phases", phases}};
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
