#include "judge/precision_check.h"

#include <algorithm>
#include <cmath>

#include "judge/reason_text.h"

namespace keval {

namespace {

// An error above this many times the largest lower-precision one is said to exceed them all.
constexpr double kBeyondLowerPrecision = 4;

// What a task of each precision allows among the measured lower precisions.
bool allowed(const std::string& task_precision, const std::string& measured) {
  return task_precision == "tf32" && measured == "tf32_rz";
}

}  // namespace

std::vector<std::string> measured_precisions(const std::string& task_precision, const std::string& dtype) {
  if (dtype != "float32") return {};
  if (task_precision == "fp32") return {"tf32", "float16", "bfloat16"};
  if (task_precision == "tf32") return {"tf32_rz", "bfloat16"};
  return {};
}

std::optional<std::string> precision_failure(const OutputComparison& output, const std::string& task_precision,
                                             const PrecisionThresholds& thresholds) {
  if (!output.mean_rel_err || output.lower_precision_err.empty()) return std::nullopt;
  const double error = *output.mean_rel_err;
  std::optional<double> lowest_disallowed;
  double highest_allowed = 0;
  for (const auto& [name, value] : output.lower_precision_err) {
    if (!value) continue;  // no finite error: that precision overflows here, so it explains nothing
    if (allowed(task_precision, name)) {
      highest_allowed = std::max(highest_allowed, *value);
    } else if (!lowest_disallowed || *value < *lowest_disallowed) {
      lowest_disallowed = *value;
    }
  }
  if (!lowest_disallowed || *lowest_disallowed < thresholds.noise_floor) return std::nullopt;
  const double threshold = std::max(thresholds.error_fraction * *lowest_disallowed,
                                    thresholds.allowed_margin * highest_allowed);
  if (!(error >= threshold)) return std::nullopt;
  // The disallowed precisions whose error reaches as far, smallest error first.
  std::vector<std::pair<double, std::string>> explaining;
  double largest = 0;
  for (const auto& [name, value] : output.lower_precision_err) {
    if (!value || allowed(task_precision, name)) continue;
    largest = std::max(largest, *value);
    if (error >= thresholds.error_fraction * *value) explaining.emplace_back(*value, name);
  }
  std::sort(explaining.begin(), explaining.end());
  std::string gives;
  for (const auto& [value, name] : explaining) gives += (gives.empty() ? "" : ", ") + name + " " + number(value);
  // Wording only: an error many times the largest is more than a lower precision explains.
  const bool beyond = error > kBeyondLowerPrecision * largest;
  std::string text = "precision: output error " + number(error) + " (mean relative) is " +
                     (beyond ? "more than" : "what") + " lower-precision arithmetic gives (" + gives +
                     ": the reference on its inputs rounded to each)";
  if (highest_allowed > 0) {
    text += " and above " + number(thresholds.allowed_margin) + " x truncated TF32's (" + number(highest_allowed) + ")";
  }
  return text + "; this task computes in " + (task_precision == "tf32" ? "TF32 or better" : "float32") +
         " (precision \"" + task_precision + "\")";
}

std::optional<std::string> all_zero_failure(const OutputComparison& output) {
  if (!output.nonzero || !output.ref_nonzero) return std::nullopt;
  if (output.numel == 0 || *output.nonzero != 0 || *output.ref_nonzero == 0) return std::nullopt;
  return "all " + std::to_string(output.numel) + " elements are 0 where the reference has " +
         std::to_string(*output.ref_nonzero) + " nonzero";
}

}  // namespace keval
