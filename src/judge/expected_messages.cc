#include "judge/expected_messages.h"

#include <algorithm>
#include <set>

namespace keval {
namespace {

std::string missing(const std::string& fact, const std::string& job, const Place& call) {
  return "fact '" + fact + "' missing from the " + job + " job for " + call.text();
}

template <class Message, class Match>
bool any_of(const std::vector<Message>& messages, Match match) {
  return std::any_of(messages.begin(), messages.end(), match);
}

}  // namespace

std::optional<std::string> missing_determinism(const JobOutcome& candidate) {
  const auto checks = candidate.messages_of<DeterminismMessage>();
  std::set<std::pair<std::string, std::string>> seen;
  for (const CallMessage& call : candidate.messages_of<CallMessage>()) {
    if (!seen.emplace(*call.at.case_name, *call.at.dtype).second) continue;
    if (!call.ok) continue;  // a failed first call is never re-run
    if (!any_of(checks, [&](const DeterminismMessage& check) { return check.at.same_call(call.at); })) {
      return missing("determinism", "candidate", call.at);
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_comparison(const JobOutcome& candidate, const JobOutcome& reference) {
  const auto compares = reference.messages_of<CompareMessage>();
  for (const CallMessage& call : candidate.messages_of<CallMessage>()) {
    if (!any_of(compares, [&](const CompareMessage& compare) { return compare.at.same_call(call.at); })) {
      return missing("compare", "reference", call.at);
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_timing(const JobOutcome& timing,
                                          const std::vector<std::pair<std::string, std::string>>& timed_cases) {
  const auto samples = timing.messages_of<TimingMessage>();
  for (const auto& [case_name, dtype] : timed_cases) {
    const bool timed = any_of(samples, [&](const TimingMessage& sample) {
      return sample.at.same_case(case_name, dtype) && sample.candidate();
    });
    if (!timed) {
      return "fact 'timing' of the submission missing from the timing job for case " + case_name + " " + dtype;
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_kernel_profile(const JobOutcome& timing) {
  const auto profiles = timing.messages_of<KernelProfileMessage>();
  const auto errors = timing.messages_of<ErrorMessage>();
  for (const TimingMessage& sample : timing.messages_of<TimingMessage>()) {
    if (!sample.candidate()) continue;
    const std::string case_name = *sample.at.case_name, dtype = *sample.at.dtype;
    if (any_of(profiles, [&](const KernelProfileMessage& p) { return p.at.same_case(case_name, dtype); })) continue;
    const bool profile_failed = any_of(errors, [&](const ErrorMessage& error) {
      return error.stage == "profile" && error.at.same_case(case_name, dtype);
    });
    if (!profile_failed) return missing("kernel_profile", "timing", sample.at);
  }
  return std::nullopt;
}

}  // namespace keval
