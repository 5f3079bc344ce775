#include "facts/job_outcome.h"

namespace keval {

nlohmann::json JobOutcome::to_json() const {
  nlohmann::json j = {{"messages", messages}, {"done", done},     {"timed_out", timed_out},
                      {"runner_lost", runner_lost}, {"wall_s", wall_s},
                      {"lease_wait_s", lease_wait_s},
                      {"stderr_tail", stderr_tail}, {"retried_alone", retried_alone}};
  j["exit_code"] = exit_code ? nlohmann::json(*exit_code) : nlohmann::json(nullptr);
  j["signal"] = signal ? nlohmann::json(*signal) : nlohmann::json(nullptr);
  return j;
}

JobOutcome JobOutcome::from_json(const nlohmann::json& j) {
  JobOutcome out;
  out.messages = j.value("messages", std::vector<nlohmann::json>{});
  out.done = j.value("done", false);
  out.timed_out = j.value("timed_out", false);
  out.runner_lost = j.value("runner_lost", false);
  out.wall_s = j.value("wall_s", 0.0);
  out.lease_wait_s = j.value("lease_wait_s", 0.0);
  out.stderr_tail = j.value("stderr_tail", "");
  out.retried_alone = j.value("retried_alone", false);
  if (j.contains("exit_code") && !j["exit_code"].is_null()) out.exit_code = j["exit_code"].get<int>();
  if (j.contains("signal") && !j["signal"].is_null()) out.signal = j["signal"].get<int>();
  return out;
}

std::vector<const nlohmann::json*> JobOutcome::of_type(const std::string& type) const {
  std::vector<const nlohmann::json*> out;
  for (const auto& message : messages) {
    if (message.is_object()) {
      auto found = message.find("type");
      if (found != message.end() && *found == type) out.push_back(&message);
    }
  }
  return out;
}

std::optional<std::string> JobOutcome::first_fault() const {
  for (const auto& message : messages) {
    if (auto parsed = parse_runner_message(message); !parsed.message) return parsed.fault;
  }
  return std::nullopt;
}

}  // namespace keval
