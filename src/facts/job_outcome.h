#pragma once
// What one runner job produced: the child's raw messages plus how its process ended.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/runner_message.h"

namespace keval {

struct JobOutcome {
  std::vector<nlohmann::json> messages;  // the child's messages, in order (no started/exit)
  bool done = false;                     // the child sent `done`
  bool timed_out = false;                // the controller killed it at its deadline
  bool runner_lost = false;              // the zygote itself died or stopped answering
  std::optional<int> exit_code;
  std::optional<int> signal;
  double wall_s = 0;
  // Time spent waiting at the device gate, within wall_s or before it. Named as its key in the
  // stored facts and in results' job_seconds, which stay as they are.
  double lease_wait_s = 0;
  std::string stderr_tail;  // last lines the child wrote to stderr (for reasons)
  bool retried_alone = false;  // a first run ran out of GPU memory beside other slots' jobs

  nlohmann::json to_json() const;
  static JobOutcome from_json(const nlohmann::json& j);

  // Messages of one type, in order, as they came.
  std::vector<const nlohmann::json*> of_type(const std::string& type) const;

  // Messages of one type, in order, parsed; a message that does not parse is left out (the
  // judge fails closed on it first: first_fault).
  template <class Message>
  std::vector<Message> messages_of() const {
    std::vector<Message> out;
    for (const nlohmann::json* message : of_type(Message::kType)) {
      if (auto parsed = parse_as<Message>(*message); parsed.message) out.push_back(std::move(*parsed.message));
    }
    return out;
  }

  // Why the first message that does not parse (runner_message.h) cannot be read, if any.
  std::optional<std::string> first_fault() const;
};

}  // namespace keval
