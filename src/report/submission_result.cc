#include "report/submission_result.h"

namespace keval {
namespace {

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::optional<double> optional_from(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// find() rather than a const operator[], which is undefined for a missing key
std::string string_or_empty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

nlohmann::json interval_json(const std::optional<double>& low, const std::optional<double>& high) {
  if (!low || !high) return nullptr;
  return nlohmann::json::array({*low, *high});
}

nlohmann::json checks_json(const std::optional<std::vector<CaseCheck>>& checks) {
  if (!checks) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const CaseCheck& check : *checks) out.push_back(check.to_json());
  return out;
}

}  // namespace

nlohmann::json SubmissionResult::to_json() const {
  nlohmann::json cases_json = nlohmann::json::array();
  for (const auto& c : cases) {
    cases_json.push_back({{"case", c.name}, {"dtype", c.dtype},
                          {"time_ms", optional_json(c.time_ms)},
                          {"ref_time_ms", optional_json(c.ref_time_ms)},
                          {"speedup", optional_json(c.speedup)},
                          {"speedup_ci", interval_json(c.speedup_ci_low, c.speedup_ci_high)},
                          {"samples", c.samples}, {"ref_samples", c.ref_samples},
                          {"stop_reason", c.stop_reason},
                          {"achieved_gbps", optional_json(c.achieved_gbps)},
                          {"achieved_tflops", optional_json(c.achieved_tflops)},
                          {"efficiency", optional_json(c.efficiency)},
                          {"max_abs_err", optional_json(c.max_abs_err)},
                          {"max_rel_err", optional_json(c.max_rel_err)},
                          {"reference_undefined", c.reference_undefined},
                          {"baseline_ms", c.baseline_ms}});
  }
  return {{"id", id},
          {"task", task},
          {"verdict", verdict_name(judgement.verdict)},
          {"reasons", judgement.reasons},
          {"call", call()},
          {"exec", exec()},
          {"speedup", optional_json(speedup)},
          {"speedup_ci", interval_json(speedup_ci_low, speedup_ci_high)},
          {"time_ms", optional_json(time_ms)},
          {"ref_time_ms", optional_json(ref_time_ms)},
          {"efficiency", optional_json(efficiency)},
          {"timing_method", timing_method.empty() ? nlohmann::json(nullptr) : nlohmann::json(timing_method)},
          {"baseline", baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(baseline)},
          {"category", category},
          {"track", track},
          {"origin", origin},
          {"hash", hash},
          {"static_flags", static_flags},
          {"job_seconds", job_seconds},
          {"generation", generation},
          {"code_metrics", code_metrics},
          {"cases", cases_json},
          {"case_checks", checks_json(case_checks)}};
}

SubmissionResult SubmissionResult::from_json(const nlohmann::json& j) {
  SubmissionResult r;
  r.id = j.value("id", "");
  r.task = j.value("task", "");
  r.category = j.value("category", "");
  r.track = j.value("track", "");
  r.origin = j.value("origin", "");
  r.hash = j.value("hash", "");
  r.judgement.verdict = verdict_from_name(j.value("verdict", "crash")).value_or(Verdict::kCrash);
  r.judgement.reasons = j.value("reasons", std::vector<std::string>{});
  r.call_ok_ = j.value("call", false);
  r.generation = j.value("generation", nlohmann::json());
  r.code_metrics = j.value("code_metrics", nlohmann::json());
  r.timing_method = string_or_empty(j, "timing_method");
  r.speedup = optional_from(j, "speedup");
  if (j.contains("speedup_ci") && j["speedup_ci"].is_array()) {
    r.speedup_ci_low = j["speedup_ci"][0].get<double>();
    r.speedup_ci_high = j["speedup_ci"][1].get<double>();
  }
  r.time_ms = optional_from(j, "time_ms");
  r.baseline = string_or_empty(j, "baseline");
  r.static_flags = j.value("static_flags", std::vector<std::string>{});
  if (j.contains("job_seconds") && j["job_seconds"].is_object()) r.job_seconds = j["job_seconds"];
  r.ref_time_ms = optional_from(j, "ref_time_ms");
  r.efficiency = optional_from(j, "efficiency");
  for (const auto& c : j.value("cases", nlohmann::json::array())) {
    CaseResult cr;
    cr.name = c.value("case", "");
    cr.dtype = c.value("dtype", "");
    cr.time_ms = optional_from(c, "time_ms");
    cr.ref_time_ms = optional_from(c, "ref_time_ms");
    cr.speedup = optional_from(c, "speedup");
    if (c.contains("speedup_ci") && c["speedup_ci"].is_array()) {
      cr.speedup_ci_low = c["speedup_ci"][0].get<double>();
      cr.speedup_ci_high = c["speedup_ci"][1].get<double>();
    }
    cr.samples = c.value("samples", 0);
    cr.ref_samples = c.value("ref_samples", 0);
    cr.stop_reason = c.value("stop_reason", "");
    cr.achieved_gbps = optional_from(c, "achieved_gbps");
    cr.achieved_tflops = optional_from(c, "achieved_tflops");
    cr.efficiency = optional_from(c, "efficiency");
    cr.max_abs_err = optional_from(c, "max_abs_err");
    cr.max_rel_err = optional_from(c, "max_rel_err");
    cr.reference_undefined = c.value("reference_undefined", 0LL);
    cr.baseline_ms = c.value("baseline_ms", std::map<std::string, double>{});
    r.cases.push_back(std::move(cr));
  }
  if (auto checks = j.find("case_checks"); checks != j.end() && checks->is_array()) {
    r.case_checks.emplace();
    for (const auto& check : *checks) {
      if (check.is_object()) r.case_checks->push_back(CaseCheck::from_json(check));
    }
  }
  return r;
}

}  // namespace keval
