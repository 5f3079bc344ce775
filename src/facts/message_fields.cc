#include "facts/message_fields.h"

#include <limits>

namespace keval {
namespace {

using nlohmann::json;

bool non_finite_text(const json& value) {
  if (!value.is_string()) return false;
  const auto& text = value.get_ref<const std::string&>();
  return text == "nan" || text == "inf" || text == "-inf";
}

const char* element_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

}  // namespace

FieldReader::FieldReader(const json& object, std::string what) : object_(object), what_(std::move(what)) {}

bool FieldReader::has(const char* name) const { return object_.is_object() && object_.contains(name); }

void FieldReader::fail(std::string why) {
  if (!fault_) fault_ = std::move(why);
}

const json* FieldReader::find(const char* name, bool required) {
  if (fault_) return nullptr;
  auto found = object_.find(name);
  if (found == object_.end()) {
    if (required) fail("fact '" + std::string(name) + "' missing from " + what_);
    return nullptr;
  }
  return &*found;
}

void FieldReader::wrong_type(const char* name, const json& value, const char* expected) {
  fail("fact '" + std::string(name) + "' of " + what_ + " is " + value.type_name() + ", expected " + expected);
}

std::string FieldReader::string(const char* name) {
  const json* value = find(name, true);
  if (!value) return "";
  if (!value->is_string()) {
    wrong_type(name, *value, "a string");
    return "";
  }
  return value->get<std::string>();
}

long long FieldReader::integer(const char* name) {
  const json* value = find(name, true);
  if (!value) return 0;
  if (!value->is_number_integer()) {
    wrong_type(name, *value, "an integer");
    return 0;
  }
  return value->get<long long>();
}

bool FieldReader::boolean(const char* name) {
  const json* value = find(name, true);
  if (!value) return false;
  if (!value->is_boolean()) {
    wrong_type(name, *value, "a boolean");
    return false;
  }
  return value->get<bool>();
}

const json& FieldReader::array(const char* name) {
  static const json kEmpty = json::array();
  const json* value = find(name, true);
  if (!value) return kEmpty;
  if (!value->is_array()) {
    wrong_type(name, *value, "an array");
    return kEmpty;
  }
  return *value;
}

std::vector<std::string> FieldReader::strings(const char* name) {
  std::vector<std::string> out;
  for (const json& item : array(name)) {
    if (!item.is_string()) {
      fail("fact '" + std::string(name) + "' of " + what_ + " holds " + element_name(item) + ", expected strings");
      return {};
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<long long> FieldReader::integers(const char* name) {
  std::vector<long long> out;
  for (const json& item : array(name)) {
    if (!item.is_number_integer()) {
      fail("fact '" + std::string(name) + "' of " + what_ + " holds " + element_name(item) + ", expected integers");
      return {};
    }
    out.push_back(item.get<long long>());
  }
  return out;
}

std::vector<double> FieldReader::numbers(const char* name) {
  std::vector<double> out;
  for (const json& item : array(name)) {
    if (item.is_number()) {
      out.push_back(item.get<double>());
    } else if (!non_finite_text(item)) {
      fail("fact '" + std::string(name) + "' of " + what_ + " holds " + element_name(item) + ", expected numbers");
      return {};
    }
  }
  return out;
}

std::optional<double> FieldReader::number_or_null(const char* name) {
  const json* value = find(name, true);
  if (!value || value->is_null()) return std::nullopt;
  if (!value->is_number()) {
    wrong_type(name, *value, "a number or null");
    return std::nullopt;
  }
  return value->get<double>();
}

std::optional<std::string> FieldReader::optional_string(const char* name) {
  return find(name, false) ? std::optional<std::string>(string(name)) : std::nullopt;
}

std::optional<long long> FieldReader::optional_integer(const char* name) {
  return find(name, false) ? std::optional<long long>(integer(name)) : std::nullopt;
}

std::optional<bool> FieldReader::optional_boolean(const char* name) {
  return find(name, false) ? std::optional<bool>(boolean(name)) : std::nullopt;
}

const json* FieldReader::optional_object(const char* name) {
  const json* value = find(name, false);
  if (!value) return nullptr;
  if (!value->is_object()) {
    wrong_type(name, *value, "an object");
    return nullptr;
  }
  return value;
}

std::optional<std::vector<std::string>> FieldReader::optional_strings(const char* name) {
  return find(name, false) ? std::optional<std::vector<std::string>>(strings(name)) : std::nullopt;
}

std::optional<std::string> FieldReader::nullable_string(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null()) return std::nullopt;
  if (!value->is_string()) {
    wrong_type(name, *value, "a string or null");
    return std::nullopt;
  }
  return value->get<std::string>();
}

std::optional<long long> FieldReader::nullable_integer(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null()) return std::nullopt;
  if (!value->is_number_integer()) {
    wrong_type(name, *value, "an integer or null");
    return std::nullopt;
  }
  return value->get<long long>();
}

std::optional<bool> FieldReader::nullable_boolean(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null()) return std::nullopt;
  if (!value->is_boolean()) {
    wrong_type(name, *value, "a boolean or null");
    return std::nullopt;
  }
  return value->get<bool>();
}

std::optional<double> FieldReader::nullable_measure(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null() || non_finite_text(*value)) return std::nullopt;
  if (!value->is_number()) {
    wrong_type(name, *value, "a number or null");
    return std::nullopt;
  }
  return value->get<double>();
}

double FieldReader::ratio(const char* name) {
  const json* value = find(name, true);
  if (!value || value->is_null()) return 0;
  if (*value == "inf") return std::numeric_limits<double>::infinity();
  if (!value->is_number() || value->get<double>() < 0) {
    wrong_type(name, *value, "a number >= 0, null or \"inf\"");
    return 0;
  }
  return value->get<double>();
}

std::optional<std::vector<double>> FieldReader::nullable_numbers(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null()) return std::nullopt;
  return numbers(name);
}

const json* FieldReader::nullable_object(const char* name) {
  const json* value = find(name, false);
  if (!value || value->is_null()) return nullptr;
  if (!value->is_object()) {
    wrong_type(name, *value, "an object or null");
    return nullptr;
  }
  return value;
}

}  // namespace keval
