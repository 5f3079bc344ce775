#pragma once
// keval.db: every run, submission (by content hash), evaluation (verdict, raw facts, result),
// case figures and timing samples. Opening an existing store never loses what it holds.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/job_outcome.h"
#include "facts/evaluation_facts.h"
#include "report/submission_result.h"
#include "store/sqlite_db.h"
#include "store/store_error.h"

namespace keval {

// What makes an evaluation a dataset record beyond its result (docs/dataset.md): the suite and
// its version, the makora form of the program, and the cases it was (to be) timed on, so a
// failed candidate still leaves one null-latency record per case.
struct PlannedCase {
  std::string name;
  std::string dtype;
  nlohmann::json params;  // the case's shape symbols, as task.toml gives them
};

struct RecordContext {
  std::string suite;
  std::string suite_version;
  std::string program_x;  // makora's `x` (Model and ModelNew in one file); "" when not that format
  std::vector<PlannedCase> timed_cases;
};

struct RunInfo {
  std::string suite;
  std::string submissions;
  std::string device;
  nlohmann::json settings;
  nlohmann::json environment;
};

// The schema this keval writes; an older store is brought up to date when opened as a Store.
inline constexpr int kStoreSchemaVersion = 3;

class Store {
 public:
  // Opens (creating or migrating) the database. Throws StoreError naming the file.
  explicit Store(const std::filesystem::path& path);
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version() const;
  int64_t begin_run(const RunInfo& run);
  void finish_run(int64_t run_id, const nlohmann::json& summary);

  // The stored result for an evaluation key (resume), if any.
  std::optional<SubmissionResult> find_result(const std::string& eval_key) const;
  // Stores submission, evaluation, case rows, samples and planned timed cases in one transaction;
  // an evaluation stored before under the same key is replaced. `policy`: the judge policy the
  // verdict was made under (JudgePolicy::to_json), null where no judge ran.
  void put_evaluation(int64_t run_id, const std::string& eval_key, const std::string& code,
                      int task_version, const SubmissionResult& result,
                      const EvaluationFacts* facts, const RecordContext* record = nullptr,
                      const nlohmann::json& policy = nullptr);

 private:
  void migrate(int from_version);
  SqliteDb db_;
};

}  // namespace keval
