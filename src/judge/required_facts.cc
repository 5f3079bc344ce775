#include "judge/required_facts.h"

#include <algorithm>
#include <initializer_list>

namespace keval {
namespace {

using nlohmann::json;

enum class FactType { kBool, kInteger, kNumberOrNull, kRatio, kString, kArray };

struct Field {
  const char* name;
  FactType type;
};

bool has_type(const json& value, FactType type) {
  switch (type) {
    case FactType::kBool: return value.is_boolean();
    case FactType::kInteger: return value.is_number_integer();
    case FactType::kNumberOrNull: return value.is_number() || value.is_null();
    // a non-negative number, null, or "inf" (how a runner message carries an infinity)
    case FactType::kRatio:
      return (value.is_number() && value.get<double>() >= 0) || value.is_null() || value == "inf";
    case FactType::kString: return value.is_string();
    case FactType::kArray: return value.is_array();
  }
  return false;
}

const char* type_text(FactType type) {
  switch (type) {
    case FactType::kBool: return "a boolean";
    case FactType::kInteger: return "an integer";
    case FactType::kNumberOrNull: return "a number or null";
    case FactType::kRatio: return "a number >= 0, null or \"inf\"";
    case FactType::kString: return "a string";
    case FactType::kArray: return "an array";
  }
  return "?";
}

// `what` names the message ("call message for case odd float32 seed 7").
std::optional<std::string> check_fields(const json& object, std::initializer_list<Field> fields,
                                        const std::string& what) {
  for (const Field& field : fields) {
    auto found = object.find(field.name);
    if (found == object.end()) return "fact '" + std::string(field.name) + "' missing from " + what;
    if (!has_type(*found, field.type)) {
      return "fact '" + std::string(field.name) + "' of " + what + " is " + found->type_name() +
             ", expected " + type_text(field.type);
    }
  }
  return std::nullopt;
}

// Every message measured for one call names it: the judge matches calls, checks and
// comparisons by these.
const std::initializer_list<Field> kWhere = {
    {"case", FactType::kString}, {"dtype", FactType::kString}, {"seed", FactType::kInteger}};

std::string described(const json& message, const std::string& type) {
  const std::string where = measured_where(message);
  return type + " message" + (where.empty() ? "" : " for " + where);
}

std::optional<std::string> check_outputs(const json& compare, const std::string& what) {
  const json& outputs = compare["outputs"];
  const auto listed = static_cast<long long>(outputs.size());
  const long long expected = std::min(compare["n_outputs"].get<long long>(),
                                      compare["ref_n_outputs"].get<long long>());
  if (listed != expected) {
    return what + " carries facts for " + std::to_string(listed) + " output(s), " +
           std::to_string(expected) + " expected";
  }
  for (const json& output : outputs) {
    const std::string named = "output of " + what;
    if (!output.is_object()) return "an " + named + " is " + output.type_name() + ", expected an object";
    if (auto bad = check_fields(output, {{"index", FactType::kInteger}, {"shape", FactType::kArray},
                                         {"ref_shape", FactType::kArray}, {"dtype", FactType::kString},
                                         {"ref_dtype", FactType::kString}}, named)) {
      return bad;
    }
    // Values are read only where shape and dtype agree (the rest is wrong_shape/wrong_dtype).
    if (output["shape"] != output["ref_shape"] || output["dtype"] != output["ref_dtype"]) continue;
    if (auto bad = check_fields(output, {{"numel", FactType::kInteger}, {"n_over_tol", FactType::kInteger},
                                         {"nan", FactType::kInteger}, {"inf", FactType::kInteger},
                                         {"ref_nan", FactType::kInteger}, {"ref_inf", FactType::kInteger}},
                                named)) {
      return bad;
    }
    // Facts stored before the per-output statistics have none (the counts decide); facts with
    // one of them must have all three, well-typed.
    if (output.contains("max_tol_ratio") || output.contains("nan_disagree") || output.contains("inf_disagree")) {
      if (auto bad = check_fields(output, {{"max_tol_ratio", FactType::kRatio},
                                           {"nan_disagree", FactType::kInteger},
                                           {"inf_disagree", FactType::kInteger}}, named)) {
        return bad;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_compare(const json& message, const std::string& what) {
  if (auto bad = check_fields(message, kWhere, what)) return bad;
  if (auto bad = check_fields(message, {{"missing", FactType::kBool}}, what)) return bad;
  if (message.contains("rerun_differs_where_defined")) {
    if (auto bad = check_fields(message, {{"rerun_differs_where_defined", FactType::kBool}}, what)) return bad;
  }
  if (message["missing"].get<bool>()) return std::nullopt;
  if (auto bad = check_fields(message, {{"n_outputs", FactType::kInteger},
                                        {"ref_n_outputs", FactType::kInteger},
                                        {"outputs", FactType::kArray}}, what)) {
    return bad;
  }
  return check_outputs(message, what);
}

std::optional<std::string> check_timing(const json& message, const std::string& what) {
  if (auto bad = check_fields(message, kWhere, what)) return bad;
  if (auto bad = check_fields(message, {{"method", FactType::kString}, {"samples_ms", FactType::kArray}}, what)) {
    return bad;
  }
  if (message.contains("who")) {
    if (auto bad = check_fields(message, {{"who", FactType::kString}}, what)) return bad;
  }
  // A message without `who` is read as the candidate's, so it needs the candidate's facts.
  if (message.value("who", "candidate") == "candidate") {
    if (auto bad = check_fields(message, {{"timed_output_mismatches", FactType::kInteger},
                                          {"l2_persisting_bytes", FactType::kInteger}}, what)) {
      return bad;
    }
  }
  if (message["method"] == "cuda_event_cold_l2") {
    return check_fields(message, {{"host_samples_ms", FactType::kArray}}, what);
  }
  return std::nullopt;
}

}  // namespace

std::string measured_where(const json& message) {
  if (!message.is_object() || !message.contains("case") || !message["case"].is_string()) return "";
  std::string out = "case " + message["case"].get<std::string>();
  if (message.contains("dtype") && message["dtype"].is_string()) out += " " + message["dtype"].get<std::string>();
  if (message.contains("seed") && message["seed"].is_number_integer()) {
    out += " seed " + std::to_string(message["seed"].get<long long>());
  }
  return out;
}

std::optional<std::string> malformed_fact(const json& message) {
  if (!message.is_object()) return "a message is " + std::string(message.type_name()) + ", expected an object";
  const std::string type = message.value("type", "");
  const std::string what = described(message, type);
  if (type == "call") {
    if (auto bad = check_fields(message, kWhere, what)) return bad;
    return check_fields(message, {{"ok", FactType::kBool}, {"kernels", FactType::kArray},
                                  {"other_kernels", FactType::kArray}, {"inputs_mutated", FactType::kBool},
                                  {"output_is_input", FactType::kBool}, {"guard_violations", FactType::kArray},
                                  {"foreign_output_types", FactType::kArray}}, what);
  }
  if (type == "determinism") {
    if (auto bad = check_fields(message, kWhere, what)) return bad;
    return check_fields(message, {{"same", FactType::kBool}}, what);
  }
  if (type == "compare") return check_compare(message, what);
  if (type == "timing") return check_timing(message, what);
  if (type == "kernel_profile") {
    if (auto bad = check_fields(message, kWhere, what)) return bad;
    // own_share is null when the call took no device time at all: present, but not a number
    return check_fields(message, {{"own_share", FactType::kNumberOrNull}, {"kernels", FactType::kArray}}, what);
  }
  if (type == "memcheck") {
    return check_fields(message, {{"summary_found", FactType::kBool}, {"errors", FactType::kInteger}}, what);
  }
  return std::nullopt;
}

std::optional<std::string> first_malformed_fact(const JobOutcome& job) {
  for (const json& message : job.messages) {
    if (auto bad = malformed_fact(message)) return bad;
  }
  return std::nullopt;
}

}  // namespace keval
