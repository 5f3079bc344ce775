#include "store/sqlite_statement.h"

#include "store/store_error.h"

namespace keval {
namespace {

// "file: SQL error: ...", the file as SQLite opened it ("" for an in-memory database).
std::string sql_error(sqlite3* db, const std::string& message) {
  const char* file = sqlite3_db_filename(db, "main");
  return (file && *file ? std::string(file) + ": " : std::string()) + "SQL error: " + message;
}

}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    throw StoreError(sql_error(db, std::string(sqlite3_errmsg(db)) + " in: " + sql.substr(0, 80)));
  }
}

Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  if (value) sqlite3_bind_double(stmt_, index, *value);
  else sqlite3_bind_null(stmt_, index);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw StoreError(sql_error(db_, sqlite3_errmsg(db_)));
}

std::string Statement::text(int column) const {
  const unsigned char* value = sqlite3_column_text(stmt_, column);
  return value ? reinterpret_cast<const char*>(value) : "";
}

bool has_column(sqlite3* db, const std::string& table, const std::string& column) {
  Statement info(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
  info.bind(1, table).bind(2, column);
  return info.step();
}

}  // namespace keval
