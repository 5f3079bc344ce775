#pragma once
// Reading keval serve's request bodies: one submission (a line of the submissions JSONL, plus
// optional "preset" and "key"), or a batch of them. Every refusal names the field.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/suite.h"

namespace keval {

class RequestError : public std::runtime_error {
 public:
  RequestError(int status, std::string field, const std::string& message)
      : std::runtime_error(message), status(status), field(std::move(field)) {}
  nlohmann::json to_json() const { return {{"error", what()}, {"field", field}}; }
  int status;         // 400 malformed, 422 well-formed but unknown (task, preset)
  std::string field;  // "body", "task", "code", "id", "preset", "key", "submissions[3].task"
};

struct EvaluateRequest {
  std::string key;     // idempotency key ("" = none)
  std::string preset;
  nlohmann::json submission;  // {"task", "code", "id"}: code extracted as keval run does
};

// One submission object. `prefix` names where it sits ("" or "submissions[3].").
EvaluateRequest read_evaluate_request(const nlohmann::json& body, const Suite& suite,
                                      const std::string& default_preset, const std::string& prefix = "");

// A request body as JSON; RequestError(400, "body") when it is not.
nlohmann::json parse_body(const std::string& body);

// {"submissions": [...], "preset"?} or a bare array; each item may have its own preset and key.
std::vector<EvaluateRequest> read_batch_request(const nlohmann::json& body, const Suite& suite,
                                                const std::string& default_preset, size_t max_items);

}  // namespace keval
