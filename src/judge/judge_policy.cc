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
          {"tolerance_scale", tolerance_scale}};
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
  return policy;
}

}  // namespace keval
