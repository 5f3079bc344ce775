#pragma once
// The fields each runner message must carry for the judge to read it. The runner always sends
// them, so a field that is missing or of the wrong type is never read as a harmless default:
// it names what is wrong, and the judge fails the submission with it.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "facts/job_outcome.h"

namespace keval {

// Why `message` cannot be judged from ("fact 'inputs_mutated' missing from call message for
// case odd float32 seed 7"), or nullopt when every fact the verdict reads in it is there and
// well-typed. Message types the judge does not read are never malformed.
std::optional<std::string> malformed_fact(const nlohmann::json& message);

// The first malformed message of `job`, as malformed_fact says.
std::optional<std::string> first_malformed_fact(const JobOutcome& job);

// "case odd float32 seed 7" for a message that names its case, else "".
std::string measured_where(const nlohmann::json& message);

}  // namespace keval
