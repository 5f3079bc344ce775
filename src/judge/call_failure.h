#pragma once
// What one call was seen doing wrong, judged the same way for the verdict (judge.h) and for the
// call's own line in the per-case checks (case_checks.h).
#include <optional>
#include <string>

#include "facts/verdict_messages.h"
#include "judge/verdict.h"

namespace keval {

// An error's kind, line and message, after the call it names ("case odd float32 seed 7: ...").
std::string error_text(const ErrorMessage& error);

bool is_compile_error(const std::string& kind);

// A call's exception: compiled or run. "OutOfBounds" is the CPU interpreter's bounds check
// (runner/keval_runner/interpreter/interpreter_memcheck.py): a load or store outside the
// launch's tensors.
Verdict call_error_verdict(const std::string& kind);

// The verdict on a call that raised (an error of stage "call"): a result that is no tensor is
// the wrong shape of output, any other error its call_error_verdict.
Judgement failed_call(const ErrorMessage& error);

// Outputs that are not plain tensors, or writes outside an input's guard bands: hacks that
// make the measurements lie, so they outrank how the process ended.
std::optional<Judgement> call_integrity_failure(const CallMessage& call);

// Inputs the call changed, or an output that is an input, where the task does not allow it.
std::optional<Judgement> call_input_failure(const CallMessage& call, bool inplace);

}  // namespace keval
