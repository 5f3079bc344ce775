#pragma once
// Golden kernel timings recorded once per GPU model (`keval golden record`) and reused by later
// runs (`--golden-from FILE` or $KEVAL_GOLDEN_DIR), so runs need not time the goldens again.
// A record is only valid for the GPU, driver, torch and Triton it was made with.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/settings/run_settings.h"
#include "report/submission_result.h"

namespace keval {

class GoldenRecord {
 public:
  // From the results of a run whose candidates were the goldens themselves.
  static GoldenRecord from_results(const std::vector<SubmissionResult>& results,
                                   const nlohmann::json& environment,
                                   const std::map<std::string, int>& task_versions);
  // Throws std::runtime_error naming the file on a bad or unreadable file.
  static GoldenRecord load(const std::filesystem::path& path);
  void save(const std::filesystem::path& path) const;

  // "" when this record fits the environment, else a one-line reason naming both sides.
  std::string mismatch(const nlohmann::json& environment) const;
  // The recorded median for a task's case and dtype, if any (and only for the same task version).
  std::optional<double> median_ms(const std::string& task, int version, const std::string& case_name,
                                  const std::string& dtype) const;
  // File name for $KEVAL_GOLDEN_DIR lookups: derived from the environment key.
  static std::string file_name_for(const nlohmann::json& environment);

 private:
  static nlohmann::json key_of(const nlohmann::json& environment);
  nlohmann::json data_;
};

// The record a run uses instead of timing the goldens: `golden_from`, else the file named for
// `environment` in $KEVAL_GOLDEN_DIR if there is one; "" for none.
std::string golden_record_path(const std::string& golden_from, const nlohmann::json& environment);

// The record at `path` for a run whose speedups are over the golden (none when `path` is "",
// timing is off or the golden is not the first baseline). It must fit `environment` (else a
// HarnessError naming the file); the golden is then taken off the baselines the run times,
// and `environment` names the record.
std::optional<GoldenRecord> use_golden_record(const std::string& path, RunSettings& settings,
                                              nlohmann::json& environment);

}  // namespace keval
