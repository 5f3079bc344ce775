#include "judge/harness_fault.h"

namespace keval {
namespace {

std::string first_line(std::string text) {
  if (auto end = text.find('\n'); end != std::string::npos) text.resize(end);
  return text.size() > 300 ? text.substr(0, 297) + "..." : text;
}

// The runner sends stage "runner" and kind "SandboxFailed" when the job's confinement (uid,
// folders, compile caches, mounts) could not be set up, before any code of the submission ran,
// and kind "OutputWriteFailed" when the warden could not write a call's outputs into keval's
// own work folder (a full or read-only disk, no permission). The guest's errors never carry
// stage "runner".
std::optional<std::string> runner_fault(const JobOutcome& job, const char* who) {
  for (const ErrorMessage& error : job.messages_of<ErrorMessage>()) {
    if (error.stage != "runner") continue;
    if (error.error_kind == "SandboxFailed") {
      return std::string(who) + " could not set up its sandbox: " + first_line(error.message);
    }
    if (error.error_kind == "OutputWriteFailed") {
      return std::string(who) + " could not save outputs in keval's work folder: " + first_line(error.message);
    }
  }
  return std::nullopt;
}

std::string end_text(const JobOutcome& job) {
  if (job.timed_out) return "killed at its deadline";
  if (job.runner_lost) return "its runner was lost";
  if (job.signal) return "signal " + std::to_string(*job.signal);
  if (job.exit_code) return "exit code " + std::to_string(*job.exit_code);
  return "no result";
}

}  // namespace

std::optional<std::string> harness_fault(const EvaluationFacts& facts) {
  if (auto fault = runner_fault(facts.candidate, "the candidate job")) return fault;
  if (facts.timing) {
    if (auto fault = runner_fault(*facts.timing, "the timing job")) return fault;
  }
  if (facts.sanitizer) {
    if (auto fault = runner_fault(*facts.sanitizer, "the compute-sanitizer job")) return fault;
  }
  if (!facts.reference) return std::nullopt;
  const JobOutcome& reference = *facts.reference;
  if (auto fault = runner_fault(reference, "the reference job")) return fault;
  if (reference.done && !reference.timed_out && !reference.runner_lost) return std::nullopt;
  std::string reason = "the reference job failed (" + end_text(reference) + ")";
  if (const auto errors = reference.messages_of<ErrorMessage>(); !errors.empty()) {
    reason += ": " + errors.front().error_kind + " " + first_line(errors.front().message);
  }
  return reason;
}

}  // namespace keval
