#include "judge/judge_policy.h"

namespace keval {

nlohmann::json JudgePolicy::to_json() const {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& [name, dtype] : timed_cases) cases.push_back({name, dtype});
  return {{"inplace", inplace},
          {"require_kernel", require_kernel},
          {"min_own_gpu_share", min_own_gpu_share},
          {"host_event_ratio", host_event_ratio},
          {"host_event_slack_ms", host_event_slack_ms},
          {"check_hidden_work", check_hidden_work},
          {"check_determinism", check_determinism},
          {"profile_kernels", profile_kernels},
          {"timed_cases", cases},
          {"tolerance_scale", tolerance_scale},
          {"precision", precision},
          {"precision_error_fraction", precision_thresholds.error_fraction},
          {"precision_allowed_margin", precision_thresholds.allowed_margin},
          {"precision_noise_floor", precision_thresholds.noise_floor}};
}

JudgePolicy JudgePolicy::from_json(const nlohmann::json& j) {
  JudgePolicy policy;
  policy.inplace = j.value("inplace", policy.inplace);
  policy.require_kernel = j.value("require_kernel", policy.require_kernel);
  policy.min_own_gpu_share = j.value("min_own_gpu_share", policy.min_own_gpu_share);
  policy.host_event_ratio = j.value("host_event_ratio", policy.host_event_ratio);
  policy.host_event_slack_ms = j.value("host_event_slack_ms", policy.host_event_slack_ms);
  policy.check_hidden_work = j.value("check_hidden_work", policy.check_hidden_work);
  policy.check_determinism = j.value("check_determinism", policy.check_determinism);
  policy.profile_kernels = j.value("profile_kernels", policy.profile_kernels);
  for (const auto& planned : j.value("timed_cases", nlohmann::json::array())) {
    policy.timed_cases.emplace_back(planned.at(0).get<std::string>(), planned.at(1).get<std::string>());
  }
  policy.tolerance_scale = j.value("tolerance_scale", policy.tolerance_scale);
  policy.precision = j.value("precision", policy.precision);
  auto& thresholds = policy.precision_thresholds;
  thresholds.error_fraction = j.value("precision_error_fraction", thresholds.error_fraction);
  thresholds.allowed_margin = j.value("precision_allowed_margin", thresholds.allowed_margin);
  thresholds.noise_floor = j.value("precision_noise_floor", thresholds.noise_floor);
  return policy;
}

}  // namespace keval
