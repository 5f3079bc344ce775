#include "judge/tolerance_check.h"

namespace keval {

bool has_tolerance_statistics(const nlohmann::json& output) {
  return output.contains("max_tol_ratio") && output.contains("nan_disagree") && output.contains("inf_disagree");
}

ToleranceCheck check_tolerance(const OutputComparison& output, double scale) {
  ToleranceCheck check;
  if (!output.has_statistics) {
    check.outside = output.n_over_tol > 0;
    return check;
  }
  check.from_statistics = true;
  check.max_ratio = output.max_tol_ratio;
  check.disagreements = output.nan_disagree + output.inf_disagree;
  check.outside = check.max_ratio > scale || check.disagreements > 0;
  return check;
}

}  // namespace keval
