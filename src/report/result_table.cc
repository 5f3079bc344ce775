#include "report/result_table.h"

#include <algorithm>
#include <cstdio>

#include "report/speedup_format.h"

namespace keval {
namespace {

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string pad(std::string text, size_t width) {
  if (text.size() > width) return text.substr(0, width - 1) + "~";
  text.resize(width, ' ');
  return text;
}

}  // namespace

void print_result_table(std::ostream& out, const std::vector<SubmissionResult>& results,
                        const nlohmann::json& summary) {
  size_t id_width = 4, task_width = 4;
  for (const auto& r : results) {
    id_width = std::max(id_width, std::min<size_t>(r.id.size(), 32));
    task_width = std::max(task_width, r.task.size());
  }
  out << pad("id", id_width + 2) << pad("task", task_width + 2) << pad("verdict", 16)
      << pad("speedup", 10) << "reason\n";
  for (const auto& r : results) {
    std::string speedup = r.speedup ? format_speedup(*r.speedup) + "x" : "-";
    std::string reason = r.judgement.reasons.empty() ? "" : r.judgement.reasons.front();
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    if (reason.size() > 90) reason = reason.substr(0, 87) + "...";
    out << pad(r.id, id_width + 2) << pad(r.task, task_width + 2)
        << pad(std::string(verdict_name(r.judgement.verdict)), 16) << pad(speedup, 10) << reason
        << "\n";
  }
  out << "\n" << summary.value("n", 0) << " submissions: call accuracy "
      << fixed(100 * summary.value("call_accuracy", 0.0), 1) << "%, exec accuracy "
      << fixed(100 * summary.value("exec_accuracy", 0.0), 1) << "%";
  if (summary["geomean_speedup"].is_number()) {
    out << ", geomean speedup " << format_speedup(summary["geomean_speedup"].get<double>()) << "x";
  }
  if (summary["timing_method"].is_string()) out << " (" << summary["timing_method"].get<std::string>() << ")";
  if (summary.contains("fast_p") && summary["fast_p"].contains("1") && summary["geomean_speedup"].is_number()) {
    out << "; fast_1 " << fixed(100 * summary["fast_p"]["1"].get<double>(), 1)
        << "% (share of all submissions that pass and beat the baseline)";
  }
  if (summary.contains("harness_errors") && !summary["harness_errors"].empty()) {
    out << "; " << summary["harness_errors"].size() << " not judged"
        << (summary.value("interrupted", false) ? " (interrupted)" : " (harness errors)");
  }
  out << "\n";
}

}  // namespace keval
