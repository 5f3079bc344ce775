#include "store/store_merge.h"

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"
#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

SubmissionResult result_of(const std::string& id, Verdict verdict) {
  SubmissionResult r;
  r.id = id;
  r.task = "relu";
  r.hash = "hash-" + id;
  r.judgement = {verdict, {"because"}};
  CaseResult c;
  c.name = "small";
  c.dtype = "float32";
  r.cases.push_back(c);
  return r;
}

// A store holding one run with an evaluation per key.
void make_store(const std::filesystem::path& path, const std::vector<std::string>& keys) {
  Store store(path);
  const int64_t run = store.begin_run({"suite", "subs", "cpu", {}, {}});
  for (const auto& key : keys) {
    store.put_evaluation(run, key, "code " + key, 1, result_of(key, Verdict::kPass), nullptr);
  }
  store.finish_run(run, {{"n", keys.size()}});
}

int64_t count(const std::filesystem::path& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  int64_t n = 0;
  {
    Statement query(db, "SELECT count(*) FROM " + table);
    query.step();
    n = query.integer(0);
  }
  sqlite3_close(db);
  return n;
}

TEST(StoreMergeTest, CopiesEveryEvaluationWithItsRunAndCaseRows) {
  ScratchDir dir;
  make_store(dir.path() / "a.db", {"k1", "k2"});
  make_store(dir.path() / "b.db", {"k3"});
  const auto counts = merge_stores(dir.path() / "m.db", {dir.path() / "a.db", dir.path() / "b.db"});
  EXPECT_EQ(counts.evaluations, 3u);
  EXPECT_EQ(counts.runs, 2u);
  EXPECT_EQ(counts.duplicates, 0u);
  EXPECT_EQ(count(dir.path() / "m.db", "evaluations"), 3);
  EXPECT_EQ(count(dir.path() / "m.db", "case_results"), 3);
  Store merged(dir.path() / "m.db");
  ASSERT_TRUE(merged.find_result("k3"));
  EXPECT_EQ(merged.find_result("k3")->id, "k3");
}

TEST(StoreMergeTest, ResolvesDuplicatesByEvaluationKeySoMergingTwiceAddsNothing) {
  ScratchDir dir;
  make_store(dir.path() / "a.db", {"k1", "k2"});
  make_store(dir.path() / "b.db", {"k2", "k3"});
  auto counts = merge_stores(dir.path() / "m.db", {dir.path() / "a.db", dir.path() / "b.db"});
  EXPECT_EQ(counts.evaluations, 3u);
  EXPECT_EQ(counts.duplicates, 1u);
  counts = merge_stores(dir.path() / "m.db", {dir.path() / "a.db", dir.path() / "b.db"});
  EXPECT_EQ(counts.evaluations, 0u);
  EXPECT_EQ(counts.runs, 0u);
  EXPECT_EQ(count(dir.path() / "m.db", "evaluations"), 3);
  EXPECT_EQ(count(dir.path() / "m.db", "case_results"), 3);
  EXPECT_EQ(count(dir.path() / "m.db", "runs"), 2);  // each source's run once
}

TEST(StoreMergeTest, ARunMergedBeforeItEndedGetsItsEndOnTheNextMerge) {
  ScratchDir dir;
  int64_t run;
  {
    Store store(dir.path() / "a.db");
    run = store.begin_run({"suite", "subs", "cpu", {}, {}});
    store.put_evaluation(run, "k1", "code", 1, result_of("k1", Verdict::kPass), nullptr);
  }
  merge_stores(dir.path() / "m.db", {dir.path() / "a.db"});
  {
    Store store(dir.path() / "a.db");
    store.put_evaluation(run, "k2", "code", 1, result_of("k2", Verdict::kPass), nullptr);
    store.finish_run(run, {{"n", 2}});
  }
  const auto counts = merge_stores(dir.path() / "m.db", {dir.path() / "a.db"});
  EXPECT_EQ(counts.runs, 0u);
  EXPECT_EQ(counts.evaluations, 1u);
  EXPECT_EQ(count(dir.path() / "m.db", "runs"), 1);
  sqlite3* db = nullptr;
  sqlite3_open((dir.path() / "m.db").c_str(), &db);
  {
    Statement finished(db, "SELECT count(*) FROM runs WHERE finished_at IS NOT NULL AND summary_json IS NOT NULL");
    finished.step();
    EXPECT_EQ(finished.integer(0), 1);
  }
  sqlite3_close(db);
}

TEST(StoreMergeTest, AMissingSourceIsAnErrorNamingIt) {
  ScratchDir dir;
  try {
    merge_stores(dir.path() / "m.db", {dir.path() / "nope.db"});
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.db"), std::string::npos);
  }
}

}  // namespace
}  // namespace keval
