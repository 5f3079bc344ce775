#include "report/status_sources.h"

#include <fstream>
#include <map>
#include <stdexcept>

namespace keval {

StatusSources read_status_sources(const std::vector<std::string>& results_files,
                                  const std::string& summary_file) {
  StatusSources sources;
  std::map<std::string, size_t> index_of_task;
  for (const auto& path : results_files) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot read the results file");
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!j.is_object() || !j.contains("task") || !j["task"].is_string()) {
        throw std::runtime_error(path + ":" + std::to_string(number) + ": not a result line (a JSON object with \"task\")");
      }
      SubmissionResult result;
      try {
        result = SubmissionResult::from_json(j);
      } catch (const std::exception& e) {
        throw std::runtime_error(path + ":" + std::to_string(number) + ": " + e.what());
      }
      auto [it, added] = index_of_task.emplace(result.task, sources.results.size());
      if (added) {
        sources.results.push_back(std::move(result));
      } else {
        sources.results[it->second] = std::move(result);
      }
    }
  }
  if (!summary_file.empty()) {
    std::ifstream in(summary_file);
    if (!in) throw std::runtime_error(summary_file + ": cannot read the summary");
    sources.summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!sources.summary.is_object()) throw std::runtime_error(summary_file + ": not a JSON object");
  }
  sources.note = "Written from the results of " + std::to_string(results_files.size()) +
                 " validate run(s) (`--from`, later files win per task).";
  return sources;
}

}  // namespace keval
