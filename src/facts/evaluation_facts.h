#pragma once
// Everything measured about one submission: the raw runner facts the judge decides from.
// Stored as they are, so a new policy can re-judge old results without a GPU.
#include <optional>

#include "facts/job_outcome.h"
#include "submission/harness_introspection.h"

namespace keval {

struct EvaluationFacts {
  JobOutcome candidate;                // ran the submission: calls, errors, timing
  std::optional<JobOutcome> reference;  // compared the saved outputs with the reference's
  std::optional<JobOutcome> timing;     // timed the submission interleaved with its baselines
  std::optional<JobOutcome> sanitizer;  // --sanitize: the small cases under compute-sanitizer
  // The static scan's uses of frames, gc walks or keval's modules in the submission's text:
  // found before any process ran, so nothing in the job's process can hide them.
  std::vector<IntrospectionUse> harness_reach;

  nlohmann::json to_json() const {
    return {{"candidate", candidate.to_json()},
            {"reference", reference ? reference->to_json() : nlohmann::json(nullptr)},
            {"timing", timing ? timing->to_json() : nlohmann::json(nullptr)},
            {"sanitizer", sanitizer ? sanitizer->to_json() : nlohmann::json(nullptr)},
            {"harness_reach", reach_json()}};
  }
  static EvaluationFacts from_json(const nlohmann::json& j) {
    EvaluationFacts facts;
    facts.candidate = JobOutcome::from_json(j.at("candidate"));
    if (!j["reference"].is_null()) facts.reference = JobOutcome::from_json(j["reference"]);
    if (j.contains("timing") && !j["timing"].is_null()) facts.timing = JobOutcome::from_json(j["timing"]);
    if (j.contains("sanitizer") && !j["sanitizer"].is_null()) facts.sanitizer = JobOutcome::from_json(j["sanitizer"]);
    for (const auto& use : j.value("harness_reach", nlohmann::json::array())) {
      facts.harness_reach.push_back(IntrospectionUse::from_json(use));
    }
    return facts;
  }

 private:
  nlohmann::json reach_json() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& use : harness_reach) out.push_back(use.to_json());
    return out;
  }
};

}  // namespace keval
