#pragma once
// What keval serve's worker calls to judge a batch of queued submissions; the real one runs a
// keval run (run_session) over them, tests use a fake.
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/preset.h"
#include "submission/submission.h"

namespace keval {

// Told batch[index]'s result as soon as it is judged, from any thread.
using EachResult = std::function<void(size_t index, const nlohmann::json& result)>;

class BatchEvaluator {
 public:
  virtual ~BatchEvaluator() = default;
  // One result object (results.jsonl's form) per submission, in their order; `on_each` may be
  // told some of them earlier. Throws std::runtime_error when the harness itself fails: every
  // job of the batch not yet told fails with it.
  virtual std::vector<nlohmann::json> evaluate(const std::vector<Submission>& batch, const Preset& preset,
                                               const EachResult& on_each) = 0;
  // For GET /v1/health: the device mode and what the evaluator knows of its machine.
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

}  // namespace keval
