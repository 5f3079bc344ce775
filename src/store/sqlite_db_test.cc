#include "store/sqlite_db.h"

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"
#include "store/sqlite_statement.h"

namespace keval {
namespace {

int64_t rows_in(const std::filesystem::path& file) {
  const SqliteDb reader(file, SqliteDb::Mode::kReadOnly);  // a second connection sees only commits
  Statement count(reader.get(), "SELECT count(*) FROM t");
  count.step();
  return count.integer(0);
}

class SqliteDbTest : public ::testing::Test {
 protected:
  void SetUp() override { SqliteDb(file_).exec("CREATE TABLE t(x INTEGER)"); }
  ScratchDir scratch_;
  const std::filesystem::path file_ = scratch_.path() / "guard.db";
};

TEST_F(SqliteDbTest, ATransactionLeftByAnExceptionLeavesNothing) {
  {
    SqliteDb db(file_);
    EXPECT_THROW(
        {
          Transaction transaction(db);
          db.exec("INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)");
          throw std::runtime_error("a write in between failed");
        },
        std::runtime_error);
    db.exec("INSERT INTO t VALUES(3)");  // no transaction is left open: this one commits alone
  }
  EXPECT_EQ(rows_in(file_), 1);
}

TEST_F(SqliteDbTest, ACommittedTransactionKeepsItsRows) {
  {
    SqliteDb db(file_);
    Transaction transaction(db);
    db.exec("INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)");
    transaction.commit();
  }
  EXPECT_EQ(rows_in(file_), 2);
}

TEST_F(SqliteDbTest, AFailedStatementRollsBackTheWholeTransaction) {
  {
    SqliteDb db(file_);
    try {
      Transaction transaction(db);
      db.exec("INSERT INTO t VALUES(1)");
      db.exec("INSERT INTO no_such_table VALUES(2)");
      transaction.commit();
      ADD_FAILURE() << "the insert into a missing table did not throw";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("guard.db: SQL error: no such table: no_such_table"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(rows_in(file_), 0);
}

TEST_F(SqliteDbTest, AFileThatCannotBeOpenedIsNamedInTheError) {
  try {
    SqliteDb db(scratch_.path() / "missing.db", SqliteDb::Mode::kReadOnly);
    ADD_FAILURE() << "a missing file opened read-only";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.db: cannot open the store"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace keval
