#pragma once
// What keval serve's worker calls to judge a batch of queued submissions; the real one runs a
// keval run (run_session) over them, tests use a fake.
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/preset.h"
#include "submission/submission.h"

namespace keval {

class BatchEvaluator {
 public:
  virtual ~BatchEvaluator() = default;
  // One result object (results.jsonl's form) per submission, in their order. Throws
  // std::runtime_error when the harness itself fails: every job of the batch fails with it.
  virtual std::vector<nlohmann::json> evaluate(const std::vector<Submission>& batch, const Preset& preset) = 0;
  // For GET /v1/health: the device mode and what the evaluator knows of its machine.
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

}  // namespace keval
