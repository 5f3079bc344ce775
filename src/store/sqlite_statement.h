#pragma once
// A prepared SQLite statement with typed binding; finalized on destruction.
#include <sqlite3.h>

#include <optional>
#include <string>

namespace keval {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, const std::optional<double>& value);
  // Steps once: true while a row is available. Throws on error.
  bool step();
  void run() { while (step()) {} }
  // Clears bindings and rewinds, so the statement can run again.
  void reset() { sqlite3_reset(stmt_); sqlite3_clear_bindings(stmt_); }
  std::string text(int column) const;
  int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::optional<double> real(int column) const {
    if (is_null(column)) return std::nullopt;
    return sqlite3_column_double(stmt_, column);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Whether `table` has a column named `column` (the schema migrations ask).
bool has_column(sqlite3* db, const std::string& table, const std::string& column);

}  // namespace keval
