#pragma once
// Everything measured about one submission: the raw runner facts the judge decides from.
// Stored as they are, so a new policy can re-judge old results without a GPU.
#include <optional>

#include "engine/job_outcome.h"

namespace keval {

struct EvaluationFacts {
  JobOutcome candidate;                // ran the submission: calls, errors, timing
  std::optional<JobOutcome> reference;  // compared the saved outputs with the reference's
  std::optional<JobOutcome> timing;     // timed the submission interleaved with its baselines
  std::optional<JobOutcome> sanitizer;  // --sanitize: the small cases under compute-sanitizer

  nlohmann::json to_json() const {
    return {{"candidate", candidate.to_json()},
            {"reference", reference ? reference->to_json() : nlohmann::json(nullptr)},
            {"timing", timing ? timing->to_json() : nlohmann::json(nullptr)},
            {"sanitizer", sanitizer ? sanitizer->to_json() : nlohmann::json(nullptr)}};
  }
  static EvaluationFacts from_json(const nlohmann::json& j) {
    EvaluationFacts facts;
    facts.candidate = JobOutcome::from_json(j.at("candidate"));
    if (!j["reference"].is_null()) facts.reference = JobOutcome::from_json(j["reference"]);
    if (j.contains("timing") && !j["timing"].is_null()) facts.timing = JobOutcome::from_json(j["timing"]);
    if (j.contains("sanitizer") && !j["sanitizer"].is_null()) facts.sanitizer = JobOutcome::from_json(j["sanitizer"]);
    return facts;
  }
};

}  // namespace keval
