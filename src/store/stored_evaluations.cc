#include "store/stored_evaluations.h"

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

nlohmann::json parsed_or_null(const Statement& row, int column, const char* name) {
  if (row.is_null(column)) return nullptr;
  try {
    return nlohmann::json::parse(row.text(column));
  } catch (const nlohmann::json::parse_error& e) {
    throw StoreError("evaluation " + std::to_string(row.integer(0)) + ": " + name + " is not JSON (" + e.what() + ")");
  }
}

}  // namespace

StoredEvaluations::StoredEvaluations(const std::filesystem::path& path) : path_(path) {
  if (!std::filesystem::is_regular_file(path)) throw StoreError(path.string() + ": no such store");
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path.string() + ": cannot open the store: " + message);
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    Statement table(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'evaluations'");
    if (!table.step()) throw StoreError("no evaluations table: not a keval store");
    Statement column(db_, "SELECT 1 FROM pragma_table_info('evaluations') WHERE name = 'policy_json'");
    has_policy_ = column.step();
  } catch (const StoreError& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path.string() + ": " + e.what());
  }
}

StoredEvaluations::~StoredEvaluations() {
  if (db_) sqlite3_close(db_);
}

std::optional<StoredEvaluation> StoredEvaluations::of_result(const std::string& hash, const std::string& task,
                                                             const std::string& verdict) const {
  try {
    // The same code for the same task under other settings has its own key (and row); the
    // line's verdict picks the row it came from.
    Statement query(db_, std::string("SELECT id, verdict, facts_json, ") + (has_policy_ ? "policy_json" : "NULL") +
                             " FROM evaluations WHERE submission_hash = ? AND task = ? "
                             "ORDER BY (verdict = ?) DESC, id DESC LIMIT 1");
    query.bind(1, hash).bind(2, task).bind(3, verdict);
    if (!query.step()) return std::nullopt;
    StoredEvaluation stored;
    stored.id = query.integer(0);
    stored.verdict = query.text(1);
    stored.facts = parsed_or_null(query, 2, "facts_json");
    stored.policy = parsed_or_null(query, 3, "policy_json");
    return stored;
  } catch (const StoreError& e) {
    throw StoreError(path_.string() + ": " + e.what());
  }
}

}  // namespace keval
