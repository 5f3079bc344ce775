#include "judge/call_failure.h"

#include <type_traits>

#include "judge/reason_text.h"

namespace keval {
namespace {

template <class Item>
std::string listed(const std::vector<Item>& items) {
  std::string out;
  for (const auto& item : items) {
    if constexpr (std::is_same_v<Item, std::string>) {
      out += (out.empty() ? "" : ", ") + item;
    } else {
      out += (out.empty() ? "" : ", ") + std::to_string(item);
    }
  }
  return out;
}

}  // namespace

std::string error_text(const ErrorMessage& error) {
  std::string text = where(error.at) + error.error_kind;
  if (error.line) text += " at line " + std::to_string(*error.line);
  if (!error.message.empty()) text += ": " + error.message;
  return text;
}

bool is_compile_error(const std::string& kind) {
  return kind == "SyntaxError" || kind == "IndentationError" || kind == "TabError" ||
         kind.find("CompilationError") != std::string::npos || kind == "CompileTimeAssertionFailure";
}

Verdict call_error_verdict(const std::string& kind) {
  if (kind == "OutOfBounds") return Verdict::kOutOfBounds;
  return is_compile_error(kind) ? Verdict::kCompileError : Verdict::kRuntimeError;
}

Judgement failed_call(const ErrorMessage& error) {
  if (error.error_kind == "NonTensorOutput") return {Verdict::kWrongShape, {error_text(error)}};
  return {call_error_verdict(error.error_kind), {error_text(error)}};
}

std::optional<Judgement> call_integrity_failure(const CallMessage& call) {
  if (!call.foreign_output_types.empty()) {
    return Judgement{Verdict::kTampering, {where(call.at) + "outputs must be plain torch.Tensor, got " +
                                           listed(call.foreign_output_types)}};
  }
  if (!call.guard_violations.empty()) {
    return Judgement{Verdict::kOutOfBounds, {where(call.at) + "wrote outside the bounds of input(s) " +
                                             listed(call.guard_violations) + " (guard bands changed)"}};
  }
  return std::nullopt;
}

std::optional<Judgement> call_input_failure(const CallMessage& call, bool inplace) {
  if (inplace) return std::nullopt;
  if (call.inputs_mutated) {
    return Judgement{Verdict::kInputMutated, {where(call.at) + "the call changed its inputs (the task does not allow it)"}};
  }
  if (call.output_is_input) return Judgement{Verdict::kTampering, {where(call.at) + "an output aliases an input tensor"}};
  return std::nullopt;
}

}  // namespace keval
