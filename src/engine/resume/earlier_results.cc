#include "engine/resume/earlier_results.h"

#include <fstream>

#include <nlohmann/json.hpp>

namespace keval {

std::vector<SubmissionResult> earlier_results_outside(const std::filesystem::path& results_file,
                                                      const std::set<std::string>& covered_tasks) {
  std::vector<SubmissionResult> kept;
  std::ifstream file(results_file);
  std::string line;
  while (std::getline(file, line)) {
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || !parsed.contains("verdict") || !parsed["task"].is_string()) continue;
    if (covered_tasks.contains(parsed["task"].get<std::string>())) continue;
    try {
      kept.push_back(SubmissionResult::from_json(parsed));
    } catch (const nlohmann::json::exception&) {
      // written by another keval version in a shape this one cannot read: not worth failing the run
    }
  }
  return kept;
}

}  // namespace keval
