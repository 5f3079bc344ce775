#include "serve/request.h"

#include <regex>

#include "common/near_name.h"
#include "serve/preset.h"
#include "submission/jsonl_reader.h"

namespace keval {
namespace {

std::string preset_names() {
  std::string names;
  for (const auto& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

std::string optional_string(const nlohmann::json& body, const char* field, const std::string& prefix) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return "";
  if (!it->is_string()) {
    throw RequestError(400, prefix + field, "field \"" + prefix + field + "\": expected a string, got " + it->type_name());
  }
  return it->get<std::string>();
}

}  // namespace

nlohmann::json parse_body(const std::string& body) {
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (auto bracket = what.find("] "); what.rfind("[json", 0) == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    throw RequestError(400, "body", "body is not JSON: " + what);
  }
}

EvaluateRequest read_evaluate_request(const nlohmann::json& body, const Suite& suite,
                                      const std::string& default_preset, const std::string& prefix) {
  const std::string where = prefix.empty() ? "body" : prefix.substr(0, prefix.size() - 1);
  if (!body.is_object()) {
    throw RequestError(400, where, where + ": expected a JSON object {\"task\", \"code\", \"id\"}, got " + body.type_name());
  }
  EvaluateRequest request;
  request.key = optional_string(body, "key", prefix);
  request.preset = optional_string(body, "preset", prefix);
  if (request.preset.empty()) request.preset = default_preset;
  if (!find_preset(request.preset)) {
    throw RequestError(422, prefix + "preset", "field \"" + prefix + "preset\": unknown preset \"" + request.preset +
                                                   "\" (known: " + preset_names() + ")");
  }
  // The submission itself is read as a line of the submissions JSONL is.
  const Submission s = parse_submission_line(body.dump(), "request");
  if (!s.error.empty()) {
    static const std::regex field_re("field \"([a-z_]+)\"");
    std::smatch match;
    std::string field = "body";
    if (std::regex_search(s.error, match, field_re)) field = match[1];
    std::string message = s.error.rfind("request: ", 0) == 0 ? s.error.substr(9) : s.error;
    throw RequestError(400, prefix + (field == "body" ? "task" : field), prefix + message);
  }
  if (!suite.find(s.task)) {
    throw RequestError(422, prefix + "task", "field \"" + prefix + "task\": unknown task \"" + s.task + "\"" +
                                                 did_you_mean(s.task, suite.names()));
  }
  const std::string given_id = optional_string(body, "id", prefix);
  request.submission = {{"task", s.task}, {"code", s.code}, {"id", given_id}};
  return request;
}

std::vector<EvaluateRequest> read_batch_request(const nlohmann::json& body, const Suite& suite,
                                                const std::string& default_preset, size_t max_items) {
  const nlohmann::json* items = &body;
  std::string preset = default_preset;
  if (body.is_object()) {
    auto it = body.find("submissions");
    if (it == body.end()) throw RequestError(400, "submissions", "missing field \"submissions\" (an array of submissions)");
    items = &*it;
    preset = optional_string(body, "preset", "");
    if (preset.empty()) preset = default_preset;
  }
  if (!items->is_array()) {
    throw RequestError(400, "submissions", "field \"submissions\": expected an array, got " + std::string(items->type_name()));
  }
  if (items->empty()) throw RequestError(400, "submissions", "field \"submissions\": empty");
  if (items->size() > max_items) {
    throw RequestError(400, "submissions", "field \"submissions\": " + std::to_string(items->size()) +
                                               " items, at most " + std::to_string(max_items) + " a batch");
  }
  std::vector<EvaluateRequest> requests;
  for (size_t i = 0; i < items->size(); ++i) {
    requests.push_back(read_evaluate_request((*items)[i], suite, preset, "submissions[" + std::to_string(i) + "]."));
  }
  return requests;
}

}  // namespace keval
