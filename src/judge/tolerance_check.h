#pragma once
// Whether one output's values lie within the task's tolerance times a scale, decided from the
// reference job's per-output statistics (docs/judging.md, "Tolerance"):
//   max_tol_ratio  the largest |a-b| / (atol + rtol*|ref|) over elements finite on both sides
//                  ("inf" where a pair differs under a tolerance of 0, null without a finite pair)
//   nan_disagree, inf_disagree  positions whose NaN or Inf pattern differs from the reference's
// The values are outside when max_tol_ratio > scale or anything disagrees. At scale 1 that is
// exactly `n_over_tol > 0`. Scaling atol and rtol together by S turns |a-b| / tolerance into
// that over S, so the statistics decide any uniform scale exactly; scaling atol and rtol apart
// would need the elements themselves.
#include <nlohmann/json.hpp>

#include "facts/compare_message.h"

namespace keval {

struct ToleranceCheck {
  bool outside = false;
  // false for facts stored before the statistics: then n_over_tol decides, at any scale
  bool from_statistics = false;
  double max_ratio = 0;  // max_tol_ratio (infinity for "inf"; 0 without a finite pair)
  long long disagreements = 0;  // nan_disagree + inf_disagree
};

// True when a stored output's raw facts carry the statistics (a keval that sends them).
bool has_tolerance_statistics(const nlohmann::json& output);

// `output`: an output whose shape and dtype match the reference's; scale > 0.
ToleranceCheck check_tolerance(const OutputComparison& output, double scale);

}  // namespace keval
