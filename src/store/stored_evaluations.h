#pragma once
// The evaluations of a keval.db, read without changing the file: no migration, no write, so a
// store that an older or newer keval made stays as it was (keval rejudge reads it this way).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/sqlite_db.h"

namespace keval {

struct StoredEvaluation {
  int64_t id = 0;
  std::string verdict;
  nlohmann::json facts;   // EvaluationFacts::to_json, null for a bad submission (no job ran)
  nlohmann::json policy;  // JudgePolicy::to_json, null where stored before keval kept it
};

class StoredEvaluations {
 public:
  // Throws StoreError naming the file when it is missing, not SQLite or holds no evaluations
  // table.
  explicit StoredEvaluations(const std::filesystem::path& path);

  // The evaluation a result line of results.jsonl came from: among those stored for its
  // submission hash and task, the newest with its verdict, else the newest; nullopt when none.
  std::optional<StoredEvaluation> of_result(const std::string& hash, const std::string& task,
                                            const std::string& verdict) const;

 private:
  SqliteDb db_;
  bool has_policy_ = false;  // the policy_json column (schema 3 on)
};

}  // namespace keval
