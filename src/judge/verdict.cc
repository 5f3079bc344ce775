#include "judge/verdict.h"

#include <array>
#include <utility>

namespace keval {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 17> kNames = {{
    {Verdict::kPass, "pass"},
    {Verdict::kBadSubmission, "bad_submission"},
    {Verdict::kMissingEntry, "missing_entry"},
    {Verdict::kCompileError, "compile_error"},
    {Verdict::kRuntimeError, "runtime_error"},
    {Verdict::kCrash, "crash"},
    {Verdict::kTimeout, "timeout"},
    {Verdict::kWrongShape, "wrong_shape"},
    {Verdict::kWrongDtype, "wrong_dtype"},
    {Verdict::kMismatch, "mismatch"},
    {Verdict::kNanMismatch, "nan_mismatch"},
    {Verdict::kNondeterministic, "nondeterministic"},
    {Verdict::kInputMutated, "input_mutated"},
    {Verdict::kOutOfBounds, "out_of_bounds"},
    {Verdict::kNoKernel, "no_kernel"},
    {Verdict::kLibraryFallback, "library_fallback"},
    {Verdict::kTampering, "tampering"},
}};

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  for (const auto& [value, name] : kNames) {
    if (value == verdict) return name;
  }
  return "unknown";
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (const auto& [value, known] : kNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

const std::vector<Verdict>& all_verdicts() {
  static const std::vector<Verdict> verdicts = [] {
    std::vector<Verdict> out;
    for (const auto& entry : kNames) out.push_back(entry.first);
    return out;
  }();
  return verdicts;
}

}  // namespace keval
