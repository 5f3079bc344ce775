#include "store/stored_evaluations.h"

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"
#include "store/sqlite_statement.h"
#include "store/store.h"
#include "store/store_merge.h"

namespace keval {
namespace {

SubmissionResult result_of(Verdict verdict) {
  SubmissionResult r;
  r.id = "s";
  r.task = "relu";
  r.hash = "abc";
  r.judgement = {verdict, {"because"}};
  return r;
}

const nlohmann::json kPolicy = {{"inplace", false}, {"tolerance_scale", 1.0}};

TEST(StoredEvaluationsTest, ReadsTheFactsAndPolicyOfTheRowWithTheLinesVerdict) {
  ScratchDir dir;
  const auto path = dir.path() / "keval.db";
  {
    Store store(path);
    const int64_t run = store.begin_run({"suite", "subs", "cpu", {}, {}});
    EvaluationFacts facts;
    store.put_evaluation(run, "key-seeds-2", "code", 1, result_of(Verdict::kMismatch), &facts, nullptr, kPolicy);
    store.put_evaluation(run, "key-seeds-3", "code", 1, result_of(Verdict::kPass), &facts, nullptr, kPolicy);
  }
  StoredEvaluations stored(path);
  auto mismatch = stored.of_result("abc", "relu", "mismatch");
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->verdict, "mismatch");  // not the newer row of the same code
  EXPECT_EQ(mismatch->policy, kPolicy);
  EXPECT_TRUE(mismatch->facts.is_object());
  EXPECT_EQ(stored.of_result("abc", "relu", "crash")->verdict, "pass");  // no such verdict: the newest
  EXPECT_FALSE(stored.of_result("abc", "softmax", "pass"));
}

TEST(StoredEvaluationsTest, APolicyTravelsThroughAMerge) {
  ScratchDir dir;
  {
    Store store(dir.path() / "shard.db");
    const int64_t run = store.begin_run({"suite", "subs", "cpu", {}, {}});
    EvaluationFacts facts;
    store.put_evaluation(run, "key", "code", 1, result_of(Verdict::kPass), &facts, nullptr, kPolicy);
  }
  merge_stores(dir.path() / "merged.db", {dir.path() / "shard.db"});
  EXPECT_EQ(StoredEvaluations(dir.path() / "merged.db").of_result("abc", "relu", "pass")->policy, kPolicy);
}

TEST(StoredEvaluationsTest, AStoreWithoutThePolicyColumnIsReadAsItIs) {
  ScratchDir dir;
  const auto path = dir.path() / "keval.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db,
               "CREATE TABLE evaluations(id INTEGER PRIMARY KEY, eval_key TEXT, submission_hash TEXT, "
               "task TEXT, verdict TEXT, facts_json TEXT);"
               "INSERT INTO evaluations VALUES(1, 'k', 'abc', 'relu', 'pass', 'null');",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto row = StoredEvaluations(path).of_result("abc", "relu", "pass");
  ASSERT_TRUE(row);
  EXPECT_TRUE(row->policy.is_null() && row->facts.is_null());
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  {
    Statement column(db, "SELECT 1 FROM pragma_table_info('evaluations') WHERE name = 'policy_json'");
    EXPECT_FALSE(column.step()) << "reading migrated the store";
  }
  sqlite3_close(db);
}

TEST(StoredEvaluationsTest, AMissingOrForeignFileIsAnErrorNamingIt) {
  ScratchDir dir;
  try {
    StoredEvaluations stored(dir.path() / "nothing.db");
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing.db: no such store"), std::string::npos) << e.what();
  }
  std::ofstream(dir.path() / "text.db") << "not sqlite";
  EXPECT_THROW(StoredEvaluations(dir.path() / "text.db"), StoreError);
}

}  // namespace
}  // namespace keval
