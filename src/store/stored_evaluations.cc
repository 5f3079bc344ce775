#include "store/stored_evaluations.h"

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

nlohmann::json parsed_or_null(const std::filesystem::path& path, const Statement& row, int column,
                              const char* name) {
  if (row.is_null(column)) return nullptr;
  try {
    return nlohmann::json::parse(row.text(column));
  } catch (const nlohmann::json::parse_error& e) {
    throw StoreError(path.string() + ": evaluation " + std::to_string(row.integer(0)) + ": " + name + " is not JSON (" + e.what() + ")");
  }
}

// The file is checked before SQLite opens it: a read-only open never creates one.
const std::filesystem::path& existing_store(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) throw StoreError(path.string() + ": no such store");
  return path;
}

}  // namespace

StoredEvaluations::StoredEvaluations(const std::filesystem::path& path)
    : db_(existing_store(path), SqliteDb::Mode::kReadOnly) {
  Statement table(db_.get(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'evaluations'");
  if (!table.step()) throw StoreError(path.string() + ": no evaluations table: not a keval store");
  Statement column(db_.get(), "SELECT 1 FROM pragma_table_info('evaluations') WHERE name = 'policy_json'");
  has_policy_ = column.step();
}

std::optional<StoredEvaluation> StoredEvaluations::of_result(const std::string& hash, const std::string& task,
                                                             const std::string& verdict) const {
  // The same code for the same task under other settings has its own key (and row); the
  // line's verdict picks the row it came from.
  Statement query(db_.get(), std::string("SELECT id, verdict, facts_json, ") + (has_policy_ ? "policy_json" : "NULL") +
                           " FROM evaluations WHERE submission_hash = ? AND task = ? "
                           "ORDER BY (verdict = ?) DESC, id DESC LIMIT 1");
  query.bind(1, hash).bind(2, task).bind(3, verdict);
  if (!query.step()) return std::nullopt;
  StoredEvaluation stored;
  stored.id = query.integer(0);
  stored.verdict = query.text(1);
  stored.facts = parsed_or_null(db_.path(), query, 2, "facts_json");
  stored.policy = parsed_or_null(db_.path(), query, 3, "policy_json");
  return stored;
}

}  // namespace keval
