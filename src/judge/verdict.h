#pragma once
// The verdict classes of DESIGN.md: pass, or exactly one failure class.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keval {

enum class Verdict {
  kPass,
  kBadSubmission,
  kMissingEntry,
  kCompileError,
  kRuntimeError,
  kCrash,
  kTimeout,
  kWrongShape,
  kWrongDtype,
  kMismatch,
  kNanMismatch,
  kNondeterministic,
  kInputMutated,
  kOutOfBounds,
  kNoKernel,
  kLibraryFallback,
  kTampering,
};

std::string_view verdict_name(Verdict verdict);
std::optional<Verdict> verdict_from_name(std::string_view name);
const std::vector<Verdict>& all_verdicts();

// A verdict with the human-readable reasons behind it (first reason explains the verdict).
struct Judgement {
  Verdict verdict = Verdict::kPass;
  std::vector<std::string> reasons;
};

}  // namespace keval
