#include "engine/results/case_results.h"

#include <algorithm>
#include <cmath>

#include "judge/harness_spread.h"
#include "stats/bootstrap.h"
#include "stats/speedup_stats.h"
#include "stats/summary_stats.h"
#include "stats/systematic_interval.h"

namespace keval {
namespace {

using nlohmann::json;

// The figures are read from the messages as they came, field by field: a figure that is
// missing or mistyped is left out (the verdict was decided from the typed messages, and a
// message that does not parse already failed it: judge/fact_integrity.h).
const json& field(const json& message, const char* key) {
  static const json kNull;
  if (!message.is_object()) return kNull;
  auto found = message.find(key);
  return found == message.end() ? kNull : *found;
}

std::string text(const json& message, const char* key, const std::string& fallback = "") {
  const json& value = field(message, key);
  return value.is_string() ? value.get<std::string>() : fallback;
}

std::vector<double> samples_of(const json& timing) {
  std::vector<double> out;
  const json& samples = field(timing, "samples_ms");
  if (!samples.is_array()) return out;
  for (const auto& value : samples) {
    if (value.is_number() && value.get<double>() > 0) out.push_back(value.get<double>());
  }
  return out;
}

const json* find_timing(const JobOutcome& job, const std::string& who, const std::string& name,
                        const std::string& dtype) {
  for (const json* timing : job.of_type("timing")) {
    if (text(*timing, "who", "candidate") == who && text(*timing, "case") == name && text(*timing, "dtype") == dtype) {
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
      CaseResult& c = case_entry(result, text(*compare, "case"), text(*compare, "dtype"));
      long long undefined = 0;
      const json& outputs = field(*compare, "outputs");
      for (const auto& out : outputs.is_array() ? outputs : json::array()) {
        keep_max(c.max_abs_err, field(out, "max_abs_err"));
        keep_max(c.max_rel_err, field(out, "max_rel_err"));
        if (const json& count = field(out, "ref_undefined"); count.is_number_integer()) undefined += count.get<long long>();
      }
      c.reference_undefined = std::max(c.reference_undefined, undefined);
    }
  }
  const bool passed = result.judgement.verdict == Verdict::kPass;
  std::vector<double> times, ref_times, speedups, lows, highs, efficiencies;
  if (!facts.timing) return;
  result.baseline = baseline;
  for (const json* timing : facts.timing->of_type("timing")) {
    if (text(*timing, "who", "candidate") != "candidate") continue;
    const std::string name = text(*timing, "case"), dtype = text(*timing, "dtype");
    std::vector<double> samples = samples_of(*timing);
    if (samples.empty()) continue;
    result.timing_method = text(*timing, "method");
    CaseResult& c = case_entry(result, name, dtype);
    c.samples = static_cast<int>(samples.size());
    c.stop_reason = text(*timing, "stop_reason");
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
      const std::string who = text(*other, "who", "candidate");
      if (who == "candidate" || who == baseline || text(*other, "case") != name || text(*other, "dtype") != dtype) {
        continue;
      }
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
    // the samples' spread and the harness's own (judge/harness_spread.h)
    Interval ci = with_systematic_error(*c.speedup, bootstrap_ratio_ci(ref_samples, samples),
                                        harness_spread(result.timing_method, *c.ref_time_ms));
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
