#pragma once
// The precision policy (docs/judging.md, "Precision"): a task states the precision it computes
// in (task.toml `precision`), and a float32 output whose error only lower-precision arithmetic
// explains fails, however close the task's tolerance lets it come. The reference job measures,
// per float32 output, the candidate's error (`mean_rel_err`: mean |out - ref| / mean |ref|) and
// the error of the reference itself re-run on its inputs rounded to each lower precision
// (`lower_precision_err`); which precisions it measures, and which of them the task allows,
// are decided here.
#include <optional>
#include <string>
#include <vector>

#include "facts/compare_message.h"

namespace keval {

// A task's precision is one of task.toml's values (src/suite/task_loader.cc): "fp32" (the
// default: no lower precision), "tf32" (tensor cores' 10-bit mantissa, as Triton's tl.dot gives
// float32 tiles by default), "any" (no check).
// The lower precisions the reference job re-runs the reference in, for a case of `dtype`:
// "tf32" (float32 rounded to a 10-bit mantissa, to nearest even), "tf32_rz" (the same,
// truncated, as tensor cores read float32 operands), "float16", "bfloat16". None for a dtype
// other than float32 or a task of precision "any".
std::vector<std::string> measured_precisions(const std::string& task_precision, const std::string& dtype);

struct PrecisionThresholds {
  // Fails when the candidate's error is at least this fraction of the smallest error among the
  // precisions the task does not allow...
  double error_fraction = 0.25;
  // ...and more than this many times the largest error among those it allows (tf32_rz for a
  // "tf32" task: truncated TF32 gives 2.6x the error of rounded TF32, a third of bfloat16's)...
  double allowed_margin = 2.0;
  // ...and that smallest disallowed error is at least this (mean relative): far above float32's
  // own noise. Below it (integer-valued inputs that round exactly, long sums whose rounding
  // errors average out) the lower precisions cannot be told from float32.
  double noise_floor = 5e-5;
};

// The reason an output within the tolerance fails the policy ("precision: output error 0.00031
// (mean relative) is what lower-precision arithmetic gives (float16 0.00029, ...)"), or nullopt.
// Which precisions are allowed follows from `task_precision`. (An output outside the tolerance
// fails on that alone; the judge does not ask.)
std::optional<std::string> precision_failure(const OutputComparison& output, const std::string& task_precision,
                                             const PrecisionThresholds& thresholds);

// An all-zero output where the reference has a nonzero element: "all 37 elements are 0, the
// reference has 12 nonzero"; nullopt otherwise or for facts stored without the counts.
std::optional<std::string> all_zero_failure(const OutputComparison& output);

}  // namespace keval
