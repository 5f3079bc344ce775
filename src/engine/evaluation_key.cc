#include "engine/evaluation_key.h"

#include <algorithm>
#include <vector>

#include "engine/job_plan.h"
#include "submission/content_hash.h"
#include "submission/file_text.h"

namespace keval {

std::string evaluation_key(const std::string& submission_hash, const Task& task,
                           const RunSettings& settings, const EvaluationContext& context) {
  // The planned cases without their seeds (fresh each run): names, shapes and tolerances.
  nlohmann::json cases = nlohmann::json::array();
  // Held-out shapes are drawn anew each run, like the seeds: the key holds how many and the
  // ranges they are drawn from.
  RunSettings listed = settings;
  listed.held_out_cases = 0;
  for (nlohmann::json planned : plan_cases(task, listed, settings.seeds_per_case)) {
    planned.erase("seeds");
    cases.push_back(std::move(planned));
  }
  const nlohmann::json key = {
      {"key_version", 2},
      {"submission", submission_hash},
      {"suite", context.suite},
      {"task", task.name},
      {"task_version", task.version},
      {"inplace", task.inplace},
      {"require_kernel", task.require_kernel},
      {"cases", cases},
      {"held_out_cases", task.held_out.empty() ? 0 : settings.held_out_cases},
      {"held_out", task.held_out.to_json()},
      {"device", settings.device},
      {"gpu", context.gpu},
      {"seeds_per_case", settings.seeds_per_case},
      {"check_determinism", settings.check_determinism},
      {"timing", settings.timing.to_json()},
      {"checks", settings.checks.to_json(settings.device)},
      {"baselines", settings.baselines},
      {"time_largest_case_only", settings.time_largest_case_only},
      {"min_own_share", settings.min_own_gpu_share},
      {"timeout_s", settings.timeout.count()},
      {"sanitize", context.sanitize},
      {"golden_record", context.golden_record},
      {"runner", context.runner},
  };
  return sha256_hex(key.dump());  // object keys are sorted: one setting, one text
}

std::string runner_code_hash(const std::filesystem::path& runner_dir) {
  const auto package = runner_dir / "keval_runner";
  std::error_code error;
  if (!std::filesystem::is_directory(package, error)) return "";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(package, error)) {
    // the protocol's schemas too: the request check and its defaults are read from them
    const auto extension = entry.path().extension();
    if (entry.is_regular_file() && (extension == ".py" || extension == ".json")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& file : files) {
    all += std::filesystem::relative(file, runner_dir).string() + "\n" + read_file_text(file) + "\n";
  }
  return sha256_hex(all);
}

}  // namespace keval
