#pragma once
// The evaluation key: resuming into an existing --out reuses a stored result only when it was
// made from the same code under everything its verdict and times depend on.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/settings/run_settings.h"
#include "suite/task.h"

namespace keval {

// What a result depends on beyond the code, the task and the run's settings.
struct EvaluationContext {
  std::string suite;          // the suite's folder, canonical: tasks of one name in two suites differ
  std::string gpu;            // the GPU's name ("" on the CPU)
  bool sanitize = false;      // --sanitize: memcheck can fail a submission that passed
  std::string golden_record;  // SHA-256 of the golden record timed against ("" = goldens timed in the run)
  std::string runner;         // runner_code_hash: the runner measures, so its code is a setting too
  // adapter_code_hash by adapter name, for every adapter a task of the suite names: a peer
  // task's files are what its adapter wrote, so that adapter's code is a setting of its results
  std::map<std::string, std::string> adapters;
};

// SHA-256 over the path and content of every .py and .json file (its code and the protocol's
// schemas) of the keval_runner package in runner_dir, in path order ("" when there is none).
// The peer adapters (runner_dir/keval_adapters) are not in it: editing one re-runs no result.
std::string runner_code_hash(const std::filesystem::path& runner_dir);

// SHA-256 over the path and content of every .py file of one peer's package in
// runner_dir/keval_adapters and of what every peer imports beside it (common/, vendor/): the
// files whose change regenerates the peer's task folders (adapter_sources in
// runner/keval_adapters/common/suite_writer.py). "" when the package is missing.
std::string adapter_code_hash(const std::filesystem::path& runner_dir, const std::string& adapter);

// adapter_code_hash of every adapter that one of `tasks` names (none for a native suite).
std::map<std::string, std::string> adapter_code_hashes(const std::filesystem::path& runner_dir,
                                                        const std::vector<Task>& tasks);

// SHA-256 over the submission's content hash, the suite, the task's name and version, the
// tolerances and shapes of its planned cases, every setting of `settings` but the run's random
// seed base, and the code of the runner and of the task's own adapter (none for a native task).
std::string evaluation_key(const std::string& submission_hash, const Task& task,
                           const RunSettings& settings, const EvaluationContext& context);

}  // namespace keval
