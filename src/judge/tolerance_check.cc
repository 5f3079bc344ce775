#include "judge/tolerance_check.h"

#include <limits>

namespace keval {

bool has_tolerance_statistics(const nlohmann::json& output) {
  return output.contains("max_tol_ratio") && output.contains("nan_disagree") && output.contains("inf_disagree");
}

ToleranceCheck check_tolerance(const nlohmann::json& output, double scale) {
  ToleranceCheck check;
  if (!has_tolerance_statistics(output)) {
    check.outside = output.value("n_over_tol", 0LL) > 0;
    return check;
  }
  check.from_statistics = true;
  const nlohmann::json& ratio = output["max_tol_ratio"];
  if (ratio.is_number()) {
    check.max_ratio = ratio.get<double>();
  } else if (ratio.is_string()) {  // "inf", the only string required_facts lets through
    check.max_ratio = std::numeric_limits<double>::infinity();
  }
  check.disagreements = output["nan_disagree"].get<long long>() + output["inf_disagree"].get<long long>();
  check.outside = check.max_ratio > scale || check.disagreements > 0;
  return check;
}

}  // namespace keval
