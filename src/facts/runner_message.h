#pragma once
// One runner message parsed by its type into its struct, or the fault that kept it from
// parsing: not an object, no type, a type the protocol does not have, a field missing or of
// the wrong type. The protocol is runner/keval_runner/protocol/messages.schema.json
// (docs/protocol.md). A fault is a value, never an exception: the runner's messages come from
// a process a submission can reach.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/compare_message.h"
#include "facts/job_messages.h"
#include "facts/verdict_messages.h"

namespace keval {

using RunnerMessage =
    std::variant<ReadyMessage, StartedMessage, ExitMessage, SandboxMessage, ProbeMessage, CeilingsMessage,
                 EntryMessage, ErrorMessage, CallMessage, DeterminismMessage, CompareMessage, TimingMessage,
                 KernelProfileMessage, AblationMessage, TamperingMessage, CompileWarmUpMessage, DeviceMessage,
                 DoneMessage, VariantDoneMessage, MemcheckMessage>;

template <class Message>
struct Parsed {
  std::optional<Message> message;
  std::string fault;  // why `message` is empty, naming the field
};

// Every message type of the protocol (memcheck is the controller's own, from SanitizedRunner).
const std::vector<std::string>& runner_message_types();

// "case odd float32 seed 7" for a message that names its case (as far as its fields are
// well-typed), else "".
std::string measured_where(const nlohmann::json& message);

// "call message for case odd float32 seed 7": how faults name a message.
std::string message_what(const nlohmann::json& message, const std::string& type);

// `message` read as a `Message`, whatever its `type` says (callers pick by type).
template <class Message>
Parsed<Message> parse_as(const nlohmann::json& message) {
  if (!message.is_object()) {
    return {std::nullopt, "a message is " + std::string(message.type_name()) + ", expected an object"};
  }
  FieldReader fields(message, message_what(message, Message::kType));
  Message parsed = Message::read(fields);
  if (fields.fault()) return {std::nullopt, *fields.fault()};
  return {std::move(parsed), ""};
}

Parsed<RunnerMessage> parse_runner_message(const nlohmann::json& message);

}  // namespace keval
