#include "engine/resume/evaluation_key.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "engine/jobs/job_plan.h"
#include "submission/content_hash.h"
#include "submission/file_text.h"

namespace keval {
namespace {

// SHA-256 over the path (relative to `root`) and content of every file under `folders` whose
// extension is one of `extensions`, in path order; "" when the first folder is missing.
std::string code_hash(const std::filesystem::path& root, const std::vector<std::filesystem::path>& folders,
                      const std::vector<std::string>& extensions) {
  std::error_code error;
  if (folders.empty() || !std::filesystem::is_directory(folders.front(), error)) return "";
  std::vector<std::filesystem::path> files;
  for (const auto& folder : folders) {
    if (!std::filesystem::is_directory(folder, error)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder, error)) {
      const std::string extension = entry.path().extension().string();
      if (entry.is_regular_file() && std::find(extensions.begin(), extensions.end(), extension) != extensions.end()) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& file : files) {
    all += std::filesystem::relative(file, root).string() + "\n" + read_file_text(file) + "\n";
  }
  return sha256_hex(all);
}

}  // namespace

std::string evaluation_key(const std::string& submission_hash, const Task& task,
                           const RunSettings& settings, const EvaluationContext& context) {
  std::string adapter_code;
  if (!task.adapter.empty()) {
    const auto found = context.adapters.find(task.adapter);
    if (found == context.adapters.end()) {
      throw std::logic_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": task " + task.name +
                             " names adapter " + task.adapter + ", whose code hash the context lacks");
    }
    adapter_code = found->second;
  }
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
      {"key_version", 3},
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
      {"timeout_s", settings.timeout_for(task.name).count()},
      {"sanitize", context.sanitize},
      {"golden_record", context.golden_record},
      {"runner", context.runner},
      {"adapter", task.adapter},
      {"adapter_code", adapter_code},
  };
  return sha256_hex(key.dump());  // object keys are sorted: one setting, one text
}

std::string runner_code_hash(const std::filesystem::path& runner_dir) {
  // the protocol's schemas too: the request check and its defaults are read from them
  return code_hash(runner_dir, {runner_dir / "keval_runner"}, {".py", ".json"});
}

std::string adapter_code_hash(const std::filesystem::path& runner_dir, const std::string& adapter) {
  const auto adapters = runner_dir / "keval_adapters";
  return code_hash(runner_dir, {adapters / adapter, adapters / "common", adapters / "vendor"}, {".py"});
}

std::map<std::string, std::string> adapter_code_hashes(const std::filesystem::path& runner_dir,
                                                        const std::vector<Task>& tasks) {
  std::map<std::string, std::string> hashes;
  for (const Task& task : tasks) {
    if (!task.adapter.empty() && !hashes.count(task.adapter)) {
      hashes[task.adapter] = adapter_code_hash(runner_dir, task.adapter);
    }
  }
  return hashes;
}

}  // namespace keval
