#include "store/store_merge.h"

#include <map>

#include "store/sqlite_db.h"
#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

const char* kEvaluationColumns =
    "eval_key, submission_hash, submission_id, origin, task, task_version, verdict, reasons_json, "
    "facts_json, result_json, speedup, time_ms, created_at, suite, suite_version, program_x, policy_json";

// The schema version a store says it has (1 when it says none), read without writing.
int schema_of(const std::filesystem::path& source) {
  const SqliteDb db(source, SqliteDb::Mode::kReadOnly);
  Statement table(db.get(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!table.step()) return 1;
  Statement version(db.get(), "SELECT value FROM meta WHERE key = 'schema_version'");
  return version.step() ? std::stoi(version.text(0)) : 1;
}

void merge_one(SqliteDb& target, const std::filesystem::path& source, StoreMergeCounts& counts) {
  // Merging reads the sources: only an older keval's store is written, to bring its schema up
  // to date (keeping every row); one this keval wrote is attached read-only, so shards in
  // folders this user cannot write merge too.
  if (schema_of(source) < kStoreSchemaVersion) Store migrate(source);
  Statement attach(target.get(), "ATTACH DATABASE ? AS src");
  attach.bind(1, read_only_uri(source));
  attach.run();
  try {
    Transaction transaction(target);
    std::map<int64_t, int64_t> run_ids;
    {
      Statement runs(target.get(), "SELECT id FROM src.runs ORDER BY id");
      // A run merged before is that run: merging again copies it no second time, and only
      // brings its end and summary when it has ended since. It has the same start (to the
      // second), inputs and settings, and no evaluation that the source's run lacks: runs
      // started in the same second (shards of one array) hold different ones.
      Statement same(target.get(),
                     "SELECT m.id FROM main.runs m JOIN src.runs s ON s.id = ? WHERE m.started_at IS s.started_at "
                     "AND m.keval_version IS s.keval_version AND m.suite IS s.suite AND m.submissions IS s.submissions "
                     "AND m.device IS s.device AND m.settings_json IS s.settings_json "
                     "AND m.environment_json IS s.environment_json "
                     "AND NOT EXISTS (SELECT 1 FROM main.evaluations me WHERE me.run_id = m.id AND NOT EXISTS "
                     "(SELECT 1 FROM src.evaluations e WHERE e.run_id = s.id AND e.eval_key = me.eval_key)) "
                     "ORDER BY m.id LIMIT 1");
      Statement ended(target.get(),
                      "UPDATE main.runs SET finished_at = s.finished_at, summary_json = s.summary_json FROM src.runs s "
                      "WHERE main.runs.id = ? AND s.id = ? AND main.runs.finished_at IS NULL AND s.finished_at IS NOT NULL");
      Statement copy(target.get(),
                     "INSERT INTO main.runs(started_at, finished_at, keval_version, suite, submissions, device, "
                     "settings_json, environment_json, summary_json) SELECT started_at, finished_at, keval_version, "
                     "suite, submissions, device, settings_json, environment_json, summary_json FROM src.runs WHERE id = ?");
      while (runs.step()) {
        same.bind(1, runs.integer(0));
        const bool known = same.step();
        const int64_t known_id = known ? same.integer(0) : 0;
        same.reset();
        if (known) {
          ended.bind(1, known_id).bind(2, runs.integer(0));
          ended.run();
          ended.reset();
          run_ids[runs.integer(0)] = known_id;
          continue;
        }
        copy.bind(1, runs.integer(0));
        copy.run();
        copy.reset();
        run_ids[runs.integer(0)] = sqlite3_last_insert_rowid(target.get());
        ++counts.runs;
      }
    }
    target.exec("INSERT OR IGNORE INTO main.submissions(hash, task, code, first_seen) "
                "SELECT hash, task, code, first_seen FROM src.submissions");
    Statement evaluations(target.get(), "SELECT id, run_id, eval_key FROM src.evaluations ORDER BY id");
    Statement known(target.get(), "SELECT 1 FROM main.evaluations WHERE eval_key = ?");
    Statement copy(target.get(), std::string("INSERT INTO main.evaluations(run_id, ") + kEvaluationColumns +
                                     ") SELECT ?, " + kEvaluationColumns + " FROM src.evaluations WHERE id = ?");
    Statement cases(target.get(),
                    "INSERT INTO main.case_results(evaluation_id, case_name, dtype, time_ms, ref_time_ms, speedup, "
                    "max_abs_err, max_rel_err) SELECT ?, case_name, dtype, time_ms, ref_time_ms, speedup, max_abs_err, "
                    "max_rel_err FROM src.case_results WHERE evaluation_id = ?");
    Statement samples(target.get(),
                      "INSERT INTO main.samples(evaluation_id, run_id, task, case_name, dtype, who, method, samples_json) "
                      "SELECT ?, ?, task, case_name, dtype, who, method, samples_json FROM src.samples WHERE evaluation_id = ?");
    Statement timed(target.get(),
                    "INSERT INTO main.timed_cases(evaluation_id, case_name, dtype, params_json) "
                    "SELECT ?, case_name, dtype, params_json FROM src.timed_cases WHERE evaluation_id = ?");
    while (evaluations.step()) {
      const int64_t old_id = evaluations.integer(0);
      known.bind(1, evaluations.text(2));
      const bool duplicate = known.step();
      known.reset();
      if (duplicate) {
        ++counts.duplicates;
        continue;
      }
      const int64_t run_id = run_ids.at(evaluations.integer(1));
      copy.bind(1, run_id).bind(2, old_id);
      copy.run();
      copy.reset();
      const int64_t new_id = sqlite3_last_insert_rowid(target.get());
      cases.bind(1, new_id).bind(2, old_id);
      cases.run();
      cases.reset();
      samples.bind(1, new_id).bind(2, run_id).bind(3, old_id);
      samples.run();
      samples.reset();
      timed.bind(1, new_id).bind(2, old_id);
      timed.run();
      timed.reset();
      ++counts.evaluations;
    }
    transaction.commit();
  } catch (const std::exception& e) {
    target.exec("DETACH DATABASE src");  // the transaction has rolled back by now
    throw StoreError(source.string() + ": cannot merge: " + e.what());
  }
  target.exec("DETACH DATABASE src");
}

}  // namespace

StoreMergeCounts merge_stores(const std::filesystem::path& into,
                              const std::vector<std::filesystem::path>& sources) {
  { Store create(into); }  // the schema, at the current version
  SqliteDb target(into);
  target.exec("PRAGMA foreign_keys=ON;");
  StoreMergeCounts counts;
  for (const auto& source : sources) {
    if (!std::filesystem::exists(source)) throw StoreError(source.string() + ": no such store");
    if (std::filesystem::equivalent(source, into)) continue;
    merge_one(target, source, counts);
  }
  return counts;
}

}  // namespace keval
