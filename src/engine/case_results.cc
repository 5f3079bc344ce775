#include "engine/case_results.h"

#include <algorithm>
#include <cmath>

#include "stats/bootstrap.h"
#include "stats/speedup_stats.h"
#include "stats/summary_stats.h"

namespace keval {
namespace {

using nlohmann::json;

std::vector<double> samples_of(const json& timing) {
  std::vector<double> out;
  for (const auto& value : timing.value("samples_ms", json::array())) {
    if (value.is_number() && value.get<double>() > 0) out.push_back(value.get<double>());
  }
  return out;
}

const json* find_timing(const JobOutcome& job, const std::string& who, const std::string& name,
                        const std::string& dtype) {
  for (const json* timing : job.of_type("timing")) {
    if (timing->value("who", "candidate") == who && timing->value("case", "") == name &&
        timing->value("dtype", "") == dtype) {
      return timing;
    }
  }
  return nullptr;
}

CaseResult& case_entry(SubmissionResult& result, const std::string& name, const std::string& dtype) {
  for (auto& c : result.cases) {
    if (c.name == name && c.dtype == dtype) return c;
  }
  result.cases.push_back(CaseResult{name, dtype});
  return result.cases.back();
}

void keep_max(std::optional<double>& slot, const json& value) {
  if (!value.is_number()) return;
  slot = slot ? std::max(*slot, value.get<double>()) : value.get<double>();
}

}  // namespace

void fill_case_results(SubmissionResult& result, const Task& task, const EvaluationFacts& facts,
                       const std::string& baseline, bool on_gpu, const Ceilings* ceilings,
                       const GoldenRecord* recorded) {
  if (facts.reference) {
    for (const json* compare : facts.reference->of_type("compare")) {
      CaseResult& c = case_entry(result, compare->value("case", ""), compare->value("dtype", ""));
      long long undefined = 0;
      for (const auto& out : compare->value("outputs", json::array())) {
        keep_max(c.max_abs_err, out["max_abs_err"]);
        keep_max(c.max_rel_err, out["max_rel_err"]);
        undefined += out.value("ref_undefined", 0LL);
      }
      c.reference_undefined = std::max(c.reference_undefined, undefined);
    }
  }
  const bool passed = result.judgement.verdict == Verdict::kPass;
  std::vector<double> times, ref_times, speedups, lows, highs, efficiencies;
  if (!facts.timing) return;
  result.baseline = baseline;
  for (const json* timing : facts.timing->of_type("timing")) {
    if (timing->value("who", "candidate") != "candidate") continue;
    const std::string name = timing->value("case", ""), dtype = timing->value("dtype", "");
    std::vector<double> samples = samples_of(*timing);
    if (samples.empty()) continue;
    result.timing_method = timing->value("method", "");
    CaseResult& c = case_entry(result, name, dtype);
    c.samples = static_cast<int>(samples.size());
    c.stop_reason = timing->value("stop_reason", "");
    c.time_ms = median(samples);
    times.push_back(*c.time_ms);
    if (on_gpu) {
      for (const auto& task_case : task.cases) {
        if (task_case.name != name) continue;
        double seconds = *c.time_ms / 1e3;
        const double bytes = case_bytes(task, task_case, dtype), flops = case_flops(task, task_case, dtype);
        c.achieved_gbps = bytes / seconds / 1e9;
        c.achieved_tflops = flops / seconds / 1e12;
        const std::string& rate = task.compute_rate.empty() ? dtype : task.compute_rate;
        if (ceilings) c.efficiency = ceilings->efficiency(bytes, flops, rate, *c.time_ms);
        if (c.efficiency) efficiencies.push_back(*c.efficiency);
      }
    }
    for (const json* other : facts.timing->of_type("timing")) {
      const std::string who = other->value("who", "candidate");
      if (who == "candidate" || who == baseline || other->value("case", "") != name ||
          other->value("dtype", "") != dtype) continue;
      std::vector<double> other_samples = samples_of(*other);
      if (!other_samples.empty()) c.baseline_ms[who] = median(other_samples);
    }
    if (recorded && baseline == "golden") {
      c.ref_time_ms = recorded->median_ms(task.name, task.version, name, dtype);
      if (!c.ref_time_ms) continue;
      ref_times.push_back(*c.ref_time_ms);
      if (!passed) continue;
      c.speedup = *c.ref_time_ms / *c.time_ms;  // no interval: the record keeps medians only
      speedups.push_back(*c.speedup);
      continue;
    }
    const json* ref_timing = find_timing(*facts.timing, baseline, name, dtype);
    if (!ref_timing) continue;
    std::vector<double> ref_samples = samples_of(*ref_timing);
    if (ref_samples.empty()) continue;
    c.ref_samples = static_cast<int>(ref_samples.size());
    c.ref_time_ms = median(ref_samples);
    ref_times.push_back(*c.ref_time_ms);
    if (!passed) continue;
    c.speedup = *c.ref_time_ms / *c.time_ms;
    Interval ci = bootstrap_ratio_ci(ref_samples, samples);
    c.speedup_ci_low = ci.low;
    c.speedup_ci_high = ci.high;
    speedups.push_back(*c.speedup);
    lows.push_back(ci.low);
    highs.push_back(ci.high);
  }
  result.time_ms = geomean(times);
  result.ref_time_ms = geomean(ref_times);
  result.efficiency = geomean(efficiencies);
  if (passed && !speedups.empty()) {
    result.speedup = geomean(speedups);
    if (lows.size() != speedups.size()) return;
    // Per-case bounds combined the same way: a conservative interval for the geometric mean.
    result.speedup_ci_low = geomean(lows);
    result.speedup_ci_high = geomean(highs);
  }
}

}  // namespace keval
