#include "report/summary.h"

#include <map>
#include <sstream>

#include "report/generation_summary.h"
#include "stats/speedup_stats.h"

namespace keval {
namespace {

const double kFastThresholds[] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

std::string threshold_key(double p) {
  std::ostringstream out;
  out << p;
  return out.str();
}

nlohmann::json figures(const std::vector<const SubmissionResult*>& results) {
  size_t calls = 0, passes = 0;
  std::vector<double> speedups;
  std::vector<std::optional<double>> per_submission;
  nlohmann::json counts = nlohmann::json::object();
  for (const auto* r : results) {
    calls += r->call();
    passes += r->exec();
    if (r->exec() && r->speedup) speedups.push_back(*r->speedup);
    per_submission.push_back(r->exec() ? r->speedup : std::nullopt);
    std::string name(verdict_name(r->judgement.verdict));
    counts[name] = counts.value(name, 0) + 1;
  }
  const double n = static_cast<double>(results.size());
  nlohmann::json fast = nlohmann::json::object();
  for (double p : kFastThresholds) {
    const auto value = measured_fast_p(per_submission, passes, p);
    fast[threshold_key(p)] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);  // null: not timed
  }
  auto speedup = geomean(speedups);
  return {{"n", results.size()},
          {"call_accuracy", n > 0 ? calls / n : 0.0},
          {"exec_accuracy", n > 0 ? passes / n : 0.0},
          {"geomean_speedup", speedup ? nlohmann::json(*speedup) : nlohmann::json(nullptr)},
          {"fast_p", fast},
          {"verdict_counts", counts}};
}

}  // namespace

nlohmann::json make_summary(const std::vector<SubmissionResult>& results,
                            const nlohmann::json& environment) {
  std::vector<const SubmissionResult*> all;
  std::map<std::string, std::vector<const SubmissionResult*>> by_category;
  std::string timing_method;
  for (const auto& r : results) {
    all.push_back(&r);
    by_category[r.category.empty() ? "unknown" : r.category].push_back(&r);
    if (!r.timing_method.empty()) timing_method = r.timing_method;
  }
  nlohmann::json summary = figures(all);
  nlohmann::json categories = nlohmann::json::object();
  for (const auto& [category, members] : by_category) {
    nlohmann::json f = figures(members);
    f.erase("fast_p");
    categories[category] = f;
  }
  summary["per_category"] = categories;
  summary["pass_at_k"] = pass_at_k_over_tasks(all);
  summary["geomean_speedup_ci"] = geomean_speedup_ci(all);
  summary["code_metrics"] = code_metric_means(all);
  summary["per_model"] = per_model_summary(results);
  summary["timing_method"] = timing_method.empty() ? nlohmann::json(nullptr) : nlohmann::json(timing_method);
  std::string baseline;  // what the speedups compare against, as the results say
  for (const auto& r : results) {
    if (!r.baseline.empty()) baseline = r.baseline;
  }
  summary["speedup_baseline"] = baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(baseline);
  summary["environment"] = environment;
  return summary;
}

}  // namespace keval
