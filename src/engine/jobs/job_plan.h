#pragma once
// Builds the runner requests for a task: which cases, dtypes, seeds and tolerances.
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/settings/run_settings.h"
#include "suite/task.h"

namespace keval {

// Folders of one evaluation: the code file, saved outputs, and each child's private folder.
struct JobDirs {
  std::filesystem::path root;
  std::filesystem::path code_file() const { return root / "submission.py"; }
  std::filesystem::path outputs() const { return root / "outputs"; }
  std::filesystem::path candidate() const { return root / "candidate"; }
  std::filesystem::path reference() const { return root / "reference"; }
  std::filesystem::path timing() const { return root / "timing"; }
  void create() const;
};

// The `cases` array: small cases only on the CPU; `seeds_per_case` seeds each; then the run's
// held-out cases (suite/held_out.h). With `benchmark_only` (the timed cases): no held-out case,
// and on CUDA only the cases not marked small (all of them if every case is small).
nlohmann::json plan_cases(const Task& task, const RunSettings& settings, int seeds_per_case,
                          bool benchmark_only = false);

// The cases the timing job times: the benchmark cases (on CUDA), or with
// `time_largest_case_only` the largest one in the task's first dtype.
nlohmann::json timed_cases(const Task& task, const RunSettings& settings);

nlohmann::json candidate_request(const Task& task, const RunSettings& settings,
                                 const std::filesystem::path& code_file, const JobDirs& dirs);
// `--sanitize`: the candidate on its small cases (one seed each) without timing, sandbox or
// saved outputs that matter, run under compute-sanitizer memcheck (see sanitized_runner.h).
nlohmann::json sanitizer_request(const Task& task, const RunSettings& settings,
                                 const std::filesystem::path& code_file, const JobDirs& dirs);

nlohmann::json reference_request(const Task& task, const RunSettings& settings,
                                  const JobDirs& dirs);
// Times the submission interleaved with the run's baselines, on the correctness seeds' inputs:
// on CUDA the benchmark cases only (small cases measure launch overhead), on the CPU the small
// cases (nothing else runs there).
nlohmann::json timing_request(const Task& task, const RunSettings& settings,
                              const std::filesystem::path& code_file, const JobDirs& dirs);

// A `sweep` job (keval sweep): the variants of one task's golden, index first_index onwards,
// judged on the quick correctness cases and timed in one process (runner/keval_runner/jobs/sweep_job.py).
nlohmann::json sweep_request(const Task& task, const RunSettings& settings,
                             const std::vector<std::filesystem::path>& code_files, size_t first_index,
                             const std::filesystem::path& work_dir);

}  // namespace keval
