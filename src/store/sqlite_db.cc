#include "store/sqlite_db.h"

namespace keval {

SqliteDb::SqliteDb(const std::filesystem::path& path, Mode mode, const std::string& what) : path_(path) {
  const int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw StoreError(path.string() + ": cannot open " + what + ": " + message);
  }
  sqlite3_busy_timeout(db_, 10000);
}

void SqliteDb::exec(const std::string& sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw StoreError(path_.string() + ": SQL error: " + message);
  }
}

Transaction::Transaction(const SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  // Never throws. After a failed COMMIT that SQLite already rolled back, this ROLLBACK fails
  // harmlessly ("no transaction is active").
  if (open_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace keval
