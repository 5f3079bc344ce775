#pragma once
// Reads one runner message's fields by name and type (the protocol's schema:
// runner/keval_runner/protocol/messages.schema.json). The runner's process is one a submission
// can reach, so a field that is missing or of the wrong type is never read as a harmless
// default: the first such field becomes the message's fault, naming it and the message. Later
// reads of a faulted message return defaults, so a struct can be read in one pass.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

class FieldReader {
 public:
  // `what` names the message in faults: "call message for case odd float32 seed 7".
  FieldReader(const nlohmann::json& object, std::string what);

  // Present and of the type.
  std::string string(const char* name);
  long long integer(const char* name);
  bool boolean(const char* name);
  const nlohmann::json& array(const char* name);
  std::vector<std::string> strings(const char* name);
  std::vector<long long> integers(const char* name);
  // Numbers, or the strings "nan", "inf", "-inf" that stand for non-finite ones in JSON; only
  // the finite numbers are kept (a non-finite sample is no time).
  std::vector<double> numbers(const char* name);
  // Present: a number or null (no string).
  std::optional<double> number_or_null(const char* name);

  // Absent is allowed; present, it must be of the type (null too is a wrong type).
  std::optional<std::string> optional_string(const char* name);
  std::optional<long long> optional_integer(const char* name);
  std::optional<bool> optional_boolean(const char* name);
  const nlohmann::json* optional_object(const char* name);
  std::optional<std::vector<std::string>> optional_strings(const char* name);

  // Absent or null are allowed; otherwise of the type.
  std::optional<std::string> nullable_string(const char* name);
  std::optional<long long> nullable_integer(const char* name);
  std::optional<bool> nullable_boolean(const char* name);
  // A number, a non-finite string (read as no value) or null.
  std::optional<double> nullable_measure(const char* name);
  // Required: a number >= 0, null (read as 0) or "inf" (read as infinity).
  double ratio(const char* name);
  std::optional<std::vector<double>> nullable_numbers(const char* name);
  const nlohmann::json* nullable_object(const char* name);

  bool has(const char* name) const;
  // A fault the caller found (a count that does not add up); the first fault stays.
  void fail(std::string why);
  const std::optional<std::string>& fault() const { return fault_; }
  const std::string& what() const { return what_; }

 private:
  // The field, or nullptr: absent (a fault when required) or after an earlier fault.
  const nlohmann::json* find(const char* name, bool required);
  void wrong_type(const char* name, const nlohmann::json& value, const char* expected);

  const nlohmann::json& object_;
  std::string what_;
  std::optional<std::string> fault_;
};

}  // namespace keval
