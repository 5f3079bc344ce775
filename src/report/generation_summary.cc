#include "report/generation_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "stats/bootstrap.h"
#include "stats/speedup_stats.h"

namespace keval {
namespace {

const double kFastThresholds[] = {0.0, 1.0, 1.5, 2.0};
const char* kCodeMetrics[] = {"codebleu", "maintainability_index", "cyclomatic_complexity"};

std::string key_of(double p) {
  std::ostringstream out;
  out << p;
  return out.str();
}

nlohmann::json number_or_null(std::optional<double> value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Sum of a numeric field of the generation records; nullopt when no record has it.
std::optional<double> generation_sum(const std::vector<const SubmissionResult*>& results, const char* field) {
  std::optional<double> sum;
  for (const auto* r : results) {
    if (!r->generation.is_object()) continue;
    auto it = r->generation.find(field);
    if (it != r->generation.end() && it->is_number()) sum = sum.value_or(0.0) + it->get<double>();
  }
  return sum;
}

nlohmann::json per_pass(std::optional<double> total, size_t passes) {
  if (!total || passes == 0) return nullptr;
  return *total / static_cast<double>(passes);
}

}  // namespace

nlohmann::json sample_figures(const std::vector<const SubmissionResult*>& results) {
  size_t passes = 0;
  std::vector<double> speedups;
  std::vector<std::optional<double>> per_submission;
  std::set<std::string> tasks;
  for (const auto* r : results) {
    passes += r->exec();
    tasks.insert(r->task);
    if (r->exec() && r->speedup) speedups.push_back(*r->speedup);
    per_submission.push_back(r->exec() ? r->speedup : std::nullopt);
  }
  nlohmann::json fast = nlohmann::json::object();
  for (double p : kFastThresholds) fast[key_of(p)] = number_or_null(measured_fast_p(per_submission, passes, p));
  const auto prompt_tokens = generation_sum(results, "prompt_tokens");
  const auto completion_tokens = generation_sum(results, "completion_tokens");
  std::optional<double> tokens;
  if (prompt_tokens || completion_tokens) tokens = prompt_tokens.value_or(0) + completion_tokens.value_or(0);
  const auto cost = generation_sum(results, "cost_usd");
  const auto seconds = generation_sum(results, "latency_s");
  return {{"n", results.size()},
          {"tasks", tasks.size()},
          {"passes", passes},
          {"exec_accuracy", results.empty() ? 0.0 : static_cast<double>(passes) / static_cast<double>(results.size())},
          {"pass_at_k", pass_at_k_over_tasks(results)},
          {"fast_p", fast},
          {"geomean_speedup", number_or_null(geomean(speedups))},
          {"geomean_speedup_ci", geomean_speedup_ci(results)},
          {"prompt_tokens", number_or_null(prompt_tokens)},
          {"completion_tokens", number_or_null(completion_tokens)},
          {"cost_usd", number_or_null(cost)},
          {"generation_s", number_or_null(seconds)},
          {"tokens_per_pass", per_pass(tokens, passes)},
          {"cost_usd_per_pass", per_pass(cost, passes)},
          {"generation_s_per_pass", per_pass(seconds, passes)},
          {"code_metrics", code_metric_means(results)}};
}

nlohmann::json geomean_speedup_ci(const std::vector<const SubmissionResult*>& results) {
  std::vector<double> speedups;
  for (const auto* r : results) {
    if (r->exec() && r->speedup) speedups.push_back(*r->speedup);
  }
  if (speedups.empty()) return nullptr;
  const Interval interval = bootstrap_geomean_ci(speedups);
  return nlohmann::json::array({interval.low, interval.high});
}

nlohmann::json pass_at_k_over_tasks(const std::vector<const SubmissionResult*>& results) {
  std::map<std::string, std::pair<int, int>> per_task;  // task -> (n, c)
  for (const auto* r : results) {
    auto& [n, c] = per_task[r->task];
    ++n;
    c += r->exec();
  }
  nlohmann::json out = nlohmann::json::object();
  if (per_task.empty()) return out;
  int smallest = per_task.begin()->second.first;
  for (const auto& [task, nc] : per_task) smallest = std::min(smallest, nc.first);
  std::set<int> ks = {smallest};
  for (int k : {1, 5, 10, 100}) {
    if (k <= smallest) ks.insert(k);
  }
  for (int k : ks) {
    double sum = 0.0;
    for (const auto& [task, nc] : per_task) sum += pass_at_k(nc.first, nc.second, k);
    out[std::to_string(k)] = sum / static_cast<double>(per_task.size());
  }
  return out;
}

nlohmann::json code_metric_means(const std::vector<const SubmissionResult*>& results) {
  nlohmann::json out = nlohmann::json::object();
  size_t scored = 0;
  for (const char* metric : kCodeMetrics) {
    double sum = 0.0;
    size_t count = 0;
    for (const auto* r : results) {
      if (!r->code_metrics.is_object()) continue;
      auto it = r->code_metrics.find(metric);
      if (it != r->code_metrics.end() && it->is_number()) {
        sum += it->get<double>();
        ++count;
      }
    }
    out[std::string(metric) + "_mean"] = count ? nlohmann::json(sum / static_cast<double>(count)) : nlohmann::json(nullptr);
    scored = std::max(scored, count);
  }
  out["scored"] = scored;
  return out;
}

nlohmann::json per_model_summary(const std::vector<SubmissionResult>& results) {
  std::map<std::string, std::vector<const SubmissionResult*>> by_model;
  for (const auto& r : results) {
    if (!r.generation.is_object()) continue;
    auto it = r.generation.find("model");
    by_model[it != r.generation.end() && it->is_string() ? it->get<std::string>() : "unknown"].push_back(&r);
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [model, members] : by_model) out[model] = sample_figures(members);
  return out;
}

}  // namespace keval
