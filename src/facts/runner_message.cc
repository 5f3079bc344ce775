#include "facts/runner_message.h"

#include <functional>
#include <map>

namespace keval {
namespace {

using nlohmann::json;

template <class Message>
Parsed<RunnerMessage> as_runner_message(const json& message) {
  Parsed<Message> parsed = parse_as<Message>(message);
  if (!parsed.message) return {std::nullopt, parsed.fault};
  return {RunnerMessage(std::move(*parsed.message)), ""};
}

using Parser = std::function<Parsed<RunnerMessage>(const json&)>;

const std::map<std::string, Parser>& parsers() {
  static const std::map<std::string, Parser> by_type = {
      {"ready", as_runner_message<ReadyMessage>},
      {"started", as_runner_message<StartedMessage>},
      {"exit", as_runner_message<ExitMessage>},
      {"sandbox", as_runner_message<SandboxMessage>},
      {"probe", as_runner_message<ProbeMessage>},
      {"ceilings", as_runner_message<CeilingsMessage>},
      {"entry", as_runner_message<EntryMessage>},
      {"error", as_runner_message<ErrorMessage>},
      {"call", as_runner_message<CallMessage>},
      {"determinism", as_runner_message<DeterminismMessage>},
      {"compare", as_runner_message<CompareMessage>},
      {"timing", as_runner_message<TimingMessage>},
      {"kernel_profile", as_runner_message<KernelProfileMessage>},
      {"ablation", as_runner_message<AblationMessage>},
      {"tampering", as_runner_message<TamperingMessage>},
      {"compile_warm_up", as_runner_message<CompileWarmUpMessage>},
      {"done", as_runner_message<DoneMessage>},
      {"variant_done", as_runner_message<VariantDoneMessage>},
      {"memcheck", as_runner_message<MemcheckMessage>},
  };
  return by_type;
}

}  // namespace

const std::vector<std::string>& runner_message_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> out;
    for (const auto& [type, parse] : parsers()) out.push_back(type);
    for (const char* type : {"device_alone", "device_shared", "device_paused", "device_idle", "device_busy"}) {
      out.push_back(type);
    }
    return out;
  }();
  return types;
}

std::string measured_where(const json& message) {
  if (!message.is_object() || !message.contains("case") || !message["case"].is_string()) return "";
  std::string out = "case " + message["case"].get<std::string>();
  if (message.contains("dtype") && message["dtype"].is_string()) out += " " + message["dtype"].get<std::string>();
  if (message.contains("seed") && message["seed"].is_number_integer()) {
    out += " seed " + std::to_string(message["seed"].get<long long>());
  }
  return out;
}

std::string message_what(const json& message, const std::string& type) {
  const std::string where = measured_where(message);
  return type + " message" + (where.empty() ? "" : " for " + where);
}

Parsed<RunnerMessage> parse_runner_message(const json& message) {
  if (!message.is_object()) {
    return {std::nullopt, "a message is " + std::string(message.type_name()) + ", expected an object"};
  }
  auto type = message.find("type");
  if (type == message.end()) return {std::nullopt, "fact 'type' missing from a message"};
  if (!type->is_string()) {
    return {std::nullopt, "fact 'type' of a message is " + std::string(type->type_name()) + ", expected a string"};
  }
  const std::string& name = type->get_ref<const std::string&>();
  if (auto job = message.find("job"); job != message.end() && !job->is_string()) {
    return {std::nullopt, "fact 'job' of a " + name.substr(0, 60) + " message is " + std::string(job->type_name()) +
                              ", expected a string"};
  }
  if (DeviceMessage::is_device_type(name)) return {RunnerMessage(DeviceMessage{name}), ""};
  auto parser = parsers().find(name);
  if (parser == parsers().end()) return {std::nullopt, "message type '" + name.substr(0, 60) + "' is not in the protocol"};
  return parser->second(message);
}

}  // namespace keval
