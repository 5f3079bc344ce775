#include "store/sqlite_db.h"

#include <unistd.h>

#include <cstdio>

namespace keval {

namespace {

// A URI for `path`: the characters a URI gives a meaning to are escaped.
std::string file_uri(const std::filesystem::path& path, const std::string& query) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

}  // namespace

std::string read_only_uri(const std::filesystem::path& path) {
  // A WAL store is read through keval.db-shm, which SQLite must create when missing: in a
  // folder this user cannot write (a read-only mount, another user's run) that fails with
  // "attempt to write a readonly database". No keval can write there either, so the file is
  // read as it stands (its last checkpoint; every finished run has one).
  const auto folder = std::filesystem::absolute(path).parent_path();
  return file_uri(path, ::access(folder.c_str(), W_OK) != 0 ? "mode=ro&immutable=1" : "mode=ro");
}

SqliteDb::SqliteDb(const std::filesystem::path& path, Mode mode, const std::string& what) : path_(path) {
  // URIs are allowed so that ATTACH can take read_only_uri's
  std::string name = path.string();
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI;
  if (mode == Mode::kReadOnly) {
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    name = read_only_uri(path);
  }
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
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
