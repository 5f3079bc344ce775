#pragma once
// One open SQLite file, the only place keval opens one: read-write (created if missing) or
// read-only, a busy timeout so concurrent writers wait instead of failing, closed on
// destruction. Every error is a StoreError naming the file.
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "store/store_error.h"

namespace keval {

class SqliteDb {
 public:
  enum class Mode { kReadWrite, kReadOnly };
  // `what` names the file's role in the open error ("the store", "the job queue").
  explicit SqliteDb(const std::filesystem::path& path, Mode mode = Mode::kReadWrite,
                    const std::string& what = "the store");
  ~SqliteDb() { sqlite3_close(db_); }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  void exec(const std::string& sql) const;
  sqlite3* get() const { return db_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

// A URI that opens `path` read-only (SQLITE_OPEN_URI, or ATTACH on a SqliteDb). In a folder
// this user cannot write it adds immutable=1: SQLite could not make the WAL's -shm file there.
std::string read_only_uri(const std::filesystem::path& path);

// A write transaction's guard: BEGIN IMMEDIATE when made, COMMIT on commit(); a scope left
// without commit() (an exception) rolls back, so no half-written rows stay behind.
class Transaction {
 public:
  explicit Transaction(const SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  const SqliteDb& db_;
  bool open_ = true;
};

}  // namespace keval
