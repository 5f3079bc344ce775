#include "engine/results/record_context.h"

#include <fstream>
#include <regex>

#include "engine/jobs/job_plan.h"
#include "submission/content_hash.h"

namespace keval {
namespace {

std::string read_or_empty(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::string task_fingerprint(const Task& task) {
  std::string defining;
  for (const char* file : {"task.toml", "reference.py", "problem.py"}) {
    defining += std::string(file) + "\n" + read_or_empty(task.dir / file) + "\n";
  }
  std::string fingerprint = "v";  // appended, not `"v" + ...`: g++ 12 warns falsely on that
  fingerprint += std::to_string(task.version);
  fingerprint += '-';
  fingerprint += sha256_hex(defining).substr(0, 12);
  return fingerprint;
}

std::string makora_program(const Task& task, const std::string& code) {
  const std::string problem = read_or_empty(task.dir / "problem.py");
  if (problem.empty()) return "";
  static const std::regex defines_model(R"((^|\n)class\s+Model\s*[(:])");
  if (std::regex_search(code, defines_model)) return code;
  return problem + "\n\n" + code;
}

RecordContext record_context(const Task& task, const RunSettings& settings, const std::string& suite,
                             const std::string& code) {
  RecordContext record{suite, task_fingerprint(task), makora_program(task, code), {}};
  if (!settings.timing.enabled) return record;
  for (const auto& planned : timed_cases(task, settings)) {
    record.timed_cases.push_back({planned.value("name", ""), planned.value("dtype", ""),
                                  planned.value("params", nlohmann::json::object())});
  }
  return record;
}

}  // namespace keval
