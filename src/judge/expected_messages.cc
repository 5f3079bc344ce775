#include "judge/expected_messages.h"

#include <functional>
#include <set>

#include "judge/required_facts.h"

namespace keval {
namespace {

using nlohmann::json;

bool same_call(const json& a, const json& b) {
  return a.value("case", "") == b.value("case", "") && a.value("dtype", "") == b.value("dtype", "") &&
         a.contains("seed") && b.contains("seed") && a["seed"] == b["seed"];
}

bool same_case(const json& message, const std::string& case_name, const std::string& dtype) {
  return message.value("case", "") == case_name && message.value("dtype", "") == dtype;
}

bool any_of_type(const JobOutcome& job, const std::string& type, const std::function<bool(const json&)>& match) {
  for (const json* message : job.of_type(type)) {
    if (match(*message)) return true;
  }
  return false;
}

std::string missing(const std::string& fact, const std::string& job, const json& call) {
  return "fact '" + fact + "' missing from the " + job + " job for " + measured_where(call);
}

}  // namespace

std::optional<std::string> missing_determinism(const JobOutcome& candidate) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const json* call : candidate.of_type("call")) {
    if (!seen.emplace(call->value("case", ""), call->value("dtype", "")).second) continue;
    if (!call->value("ok", false)) continue;  // a failed first call is never re-run
    if (!any_of_type(candidate, "determinism", [&](const json& check) { return same_call(check, *call); })) {
      return missing("determinism", "candidate", *call);
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_comparison(const JobOutcome& candidate, const JobOutcome& reference) {
  for (const json* call : candidate.of_type("call")) {
    if (!any_of_type(reference, "compare", [&](const json& compare) { return same_call(compare, *call); })) {
      return missing("compare", "reference", *call);
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_timing(const JobOutcome& timing,
                                          const std::vector<std::pair<std::string, std::string>>& timed_cases) {
  for (const auto& [case_name, dtype] : timed_cases) {
    const bool timed = any_of_type(timing, "timing", [&](const json& sample) {
      return same_case(sample, case_name, dtype) && sample.value("who", "candidate") == "candidate";
    });
    if (!timed) {
      return "fact 'timing' of the submission missing from the timing job for case " + case_name + " " + dtype;
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_kernel_profile(const JobOutcome& timing) {
  for (const json* sample : timing.of_type("timing")) {
    if (sample->value("who", "candidate") != "candidate") continue;
    const std::string case_name = sample->value("case", ""), dtype = sample->value("dtype", "");
    auto of_this_case = [&](const json& message) { return same_case(message, case_name, dtype); };
    if (any_of_type(timing, "kernel_profile", of_this_case)) continue;
    const bool profile_failed = any_of_type(timing, "error", [&](const json& error) {
      return error.value("stage", "") == "profile" && of_this_case(error);
    });
    if (!profile_failed) return missing("kernel_profile", "timing", *sample);
  }
  return std::nullopt;
}

}  // namespace keval
