#include "engine/runner/sanitized_runner.h"

#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "engine/runner/runner_process.h"

namespace keval {

MemcheckReport parse_memcheck_log(const std::string& text) {
  MemcheckReport report;
  static const std::regex summary(R"(ERROR SUMMARY:\s*(\d+)\s+error)");
  static const std::regex error_line(R"(^=+\s+((Invalid|Misaligned|Out-of-range|Program hit|Address|Malloc|Cuda API error|Uninitialized).*)$)");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, summary)) {
      report.summary_found = true;
      report.errors += std::stoi(m[1].str());  // one summary per process the tool followed
    } else if (report.first_errors.size() < 3 && std::regex_match(line, m, error_line)) {
      report.first_errors.push_back(m[1].str());
    }
  }
  return report;
}

std::string find_compute_sanitizer() {
  if (const char* env = std::getenv("KEVAL_COMPUTE_SANITIZER"); env && *env) {
    if (::access(env, X_OK) == 0) return env;
    throw HarnessError(std::string("KEVAL_COMPUTE_SANITIZER: ") + env + " is not an executable file");
  }
  std::vector<std::filesystem::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty()) candidates.push_back(std::filesystem::path(dir) / "compute-sanitizer");
    }
  }
  candidates.push_back("/usr/local/cuda/bin/compute-sanitizer");
  for (const auto& candidate : candidates) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  throw HarnessError("--sanitize: compute-sanitizer not found on PATH nor in /usr/local/cuda/bin "
                     "(set KEVAL_COMPUTE_SANITIZER)");
}

std::vector<std::string> memcheck_wrapper(const std::string& tool, const std::filesystem::path& log) {
  return {tool, "--tool", "memcheck", "--target-processes", "all", "--print-limit", "20",
          "--log-file", log.string()};
}

JobOutcome SanitizedRunner::run(nlohmann::json request, std::chrono::milliseconds timeout,
                                const MessageHook& on_message) {
  std::error_code ignored;
  std::filesystem::remove(log_, ignored);  // the tool's log of this job alone
  JobOutcome outcome = inner_.run(std::move(request), timeout, on_message);
  finish_();
  std::ifstream in(log_, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  MemcheckReport report = parse_memcheck_log(text);
  outcome.messages.push_back({{"type", "memcheck"}, {"errors", report.errors},
                              {"summary_found", report.summary_found},
                              {"first_errors", report.first_errors}, {"log", log_.string()}});
  return outcome;
}

}  // namespace keval
