#include "store/store.h"

#include <chrono>
#include <ctime>

#include "store/sqlite_statement.h"

namespace keval {
namespace {

constexpr int kSchemaVersion = kStoreSchemaVersion;

// Version 1. Later versions append migrations; existing rows are never dropped.
const char* kSchemaV1 = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, keval_version TEXT,
  suite TEXT, submissions TEXT, device TEXT, settings_json TEXT, environment_json TEXT,
  summary_json TEXT);
CREATE TABLE IF NOT EXISTS submissions(
  hash TEXT PRIMARY KEY, task TEXT NOT NULL, code TEXT NOT NULL, first_seen TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  eval_key TEXT NOT NULL UNIQUE, submission_hash TEXT REFERENCES submissions(hash),
  submission_id TEXT, origin TEXT, task TEXT, task_version INTEGER, verdict TEXT NOT NULL,
  reasons_json TEXT, facts_json TEXT, result_json TEXT NOT NULL, speedup REAL, time_ms REAL,
  created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS case_results(
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id), case_name TEXT, dtype TEXT,
  time_ms REAL, ref_time_ms REAL, speedup REAL, max_abs_err REAL, max_rel_err REAL);
CREATE TABLE IF NOT EXISTS samples(
  evaluation_id INTEGER REFERENCES evaluations(id), run_id INTEGER, task TEXT,
  case_name TEXT, dtype TEXT, who TEXT NOT NULL, method TEXT, samples_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS evaluations_by_run ON evaluations(run_id);
CREATE INDEX IF NOT EXISTS case_results_by_eval ON case_results(evaluation_id);
)sql";

// Version 2: dataset records (docs/dataset.md). Columns are added, never dropped, so a version 1
// store keeps every row and its evaluations stay exportable (without shapes).
const char* kTimedCasesV2 = R"sql(
CREATE TABLE IF NOT EXISTS timed_cases(
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id), case_name TEXT NOT NULL,
  dtype TEXT NOT NULL, params_json TEXT);
CREATE INDEX IF NOT EXISTS timed_cases_by_eval ON timed_cases(evaluation_id);
)sql";

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// Every timing sample of a job, one row per (who, case, dtype): "candidate" or a baseline.
void put_samples(sqlite3* db, int64_t evaluation_id, int64_t run_id, const std::string& task,
                 const JobOutcome& job) {
  Statement insert(db, "INSERT INTO samples(evaluation_id, run_id, task, case_name, dtype, who, "
                       "method, samples_json) VALUES(?,?,?,?,?,?,?,?)");
  for (const auto* raw : job.of_type("timing")) {
    const Parsed<TimingMessage> timing = parse_as<TimingMessage>(*raw);
    if (!timing.message) continue;  // judged as a fault; no samples to keep
    const Place& at = timing.message->at;
    insert.bind(1, evaluation_id).bind(2, run_id).bind(3, task)
        .bind(4, *at.case_name).bind(5, *at.dtype).bind(6, timing.message->who)
        .bind(7, timing.message->method).bind(8, raw->at("samples_ms").dump());  // as they came
    insert.run();
    insert.reset();
  }
}

// A fresh evaluation of a key replaces the stored one (`keval run --rerun`): the old row and
// everything hanging off it go, so a key has one result and the dataset one record per key.
void delete_evaluation(sqlite3* db, const std::string& eval_key) {
  Statement find(db, "SELECT id FROM evaluations WHERE eval_key = ?");
  find.bind(1, eval_key);
  if (!find.step()) return;
  const int64_t id = find.integer(0);
  for (const char* table : {"case_results", "samples", "timed_cases"}) {
    Statement remove(db, std::string("DELETE FROM ") + table + " WHERE evaluation_id = ?");
    remove.bind(1, id);
    remove.run();
  }
  Statement remove(db, "DELETE FROM evaluations WHERE id = ?");
  remove.bind(1, id);
  remove.run();
}

}  // namespace

Store::Store(const std::filesystem::path& path) : db_(path) {
  db_.exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;");
  db_.exec(kSchemaV1);
  const int version = schema_version();
  if (version > kSchemaVersion) {
    throw StoreError(path.string() + ": schema version " + std::to_string(version) +
                     " is newer than this keval understands (" + std::to_string(kSchemaVersion) + ")");
  }
  migrate(version);
}

int Store::schema_version() const {
  Statement query(db_.get(), "SELECT value FROM meta WHERE key = 'schema_version'");
  return query.step() ? std::stoi(query.text(0)) : 1;  // a new file has just had version 1 made
}

void Store::migrate(int from_version) {
  if (from_version == kSchemaVersion) return;
  Transaction transaction(db_);
  if (from_version < 2) {
    for (const char* column : {"suite", "suite_version", "program_x"}) {
      if (!has_column(db_.get(), "evaluations", column)) {
        db_.exec(std::string("ALTER TABLE evaluations ADD COLUMN ") + column + " TEXT");
      }
    }
    db_.exec(kTimedCasesV2);
  }
  // Version 3: the judge policy each verdict was made under (judge/judge_policy.h), which
  // `keval rejudge` applies again; NULL for evaluations stored before it.
  if (from_version < 3 && !has_column(db_.get(), "evaluations", "policy_json")) {
    db_.exec("ALTER TABLE evaluations ADD COLUMN policy_json TEXT");
  }
  std::string record_version = "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '";
  record_version += std::to_string(kSchemaVersion);
  record_version += "')";
  db_.exec(record_version);
  transaction.commit();
}

int64_t Store::begin_run(const RunInfo& run) {
  Statement insert(db_.get(), "INSERT INTO runs(started_at, keval_version, suite, submissions, device, "
                        "settings_json, environment_json) VALUES(?,?,?,?,?,?,?)");
  insert.bind(1, now_utc()).bind(2, std::string(KEVAL_VERSION)).bind(3, run.suite)
      .bind(4, run.submissions).bind(5, run.device).bind(6, run.settings.dump())
      .bind(7, run.environment.dump());
  insert.run();
  return sqlite3_last_insert_rowid(db_.get());
}

void Store::finish_run(int64_t run_id, const nlohmann::json& summary) {
  Statement update(db_.get(), "UPDATE runs SET finished_at = ?, summary_json = ? WHERE id = ?");
  update.bind(1, now_utc()).bind(2, summary.dump()).bind(3, run_id);
  update.run();
}

std::optional<SubmissionResult> Store::find_result(const std::string& eval_key) const {
  Statement query(db_.get(), "SELECT result_json FROM evaluations WHERE eval_key = ?");
  query.bind(1, eval_key);
  if (!query.step()) return std::nullopt;
  return SubmissionResult::from_json(nlohmann::json::parse(query.text(0)));
}

void Store::put_evaluation(int64_t run_id, const std::string& eval_key, const std::string& code,
                           int task_version, const SubmissionResult& result,
                           const EvaluationFacts* facts, const RecordContext* record,
                           const nlohmann::json& policy) {
  Transaction transaction(db_);
  Statement submission(db_.get(), "INSERT OR IGNORE INTO submissions(hash, task, code, first_seen) "
                            "VALUES(?,?,?,?)");
  submission.bind(1, result.hash).bind(2, result.task).bind(3, code).bind(4, now_utc());
  submission.run();
  delete_evaluation(db_.get(), eval_key);
  Statement insert(db_.get(), "INSERT INTO evaluations(run_id, eval_key, submission_hash, "
                        "submission_id, origin, task, task_version, verdict, reasons_json, "
                        "facts_json, result_json, speedup, time_ms, created_at) "
                        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  nlohmann::json result_json = result.to_json();
  insert.bind(1, run_id).bind(2, eval_key).bind(3, result.hash).bind(4, result.id)
      .bind(5, result.origin).bind(6, result.task).bind(7, static_cast<int64_t>(task_version))
      .bind(8, std::string(verdict_name(result.judgement.verdict)))
      .bind(9, result_json["reasons"].dump())
      .bind(10, facts ? facts->to_json().dump() : std::string("null"))
      .bind(11, result_json.dump()).bind(12, result.speedup).bind(13, result.time_ms)
      .bind(14, now_utc());
  insert.run();
  int64_t evaluation_id = sqlite3_last_insert_rowid(db_.get());
  for (const auto& c : result.cases) {
    Statement row(db_.get(), "INSERT INTO case_results(evaluation_id, case_name, dtype, time_ms, "
                       "ref_time_ms, speedup, max_abs_err, max_rel_err) VALUES(?,?,?,?,?,?,?,?)");
    row.bind(1, evaluation_id).bind(2, c.name).bind(3, c.dtype).bind(4, c.time_ms)
        .bind(5, c.ref_time_ms).bind(6, c.speedup).bind(7, c.max_abs_err).bind(8, c.max_rel_err);
    row.run();
  }
  if (facts && facts->timing) put_samples(db_.get(), evaluation_id, run_id, result.task, *facts->timing);
  if (!policy.is_null()) {
    Statement update(db_.get(), "UPDATE evaluations SET policy_json = ? WHERE id = ?");
    update.bind(1, policy.dump()).bind(2, evaluation_id);
    update.run();
  }
  if (record) {
    Statement update(db_.get(), "UPDATE evaluations SET suite = ?, suite_version = ?, program_x = ? WHERE id = ?");
    update.bind(1, record->suite).bind(2, record->suite_version).bind(3, record->program_x)
        .bind(4, evaluation_id);
    update.run();
    Statement planned(db_.get(), "INSERT INTO timed_cases(evaluation_id, case_name, dtype, params_json) "
                           "VALUES(?,?,?,?)");
    for (const auto& c : record->timed_cases) {
      planned.bind(1, evaluation_id).bind(2, c.name).bind(3, c.dtype).bind(4, c.params.dump());
      planned.run();
      planned.reset();
    }
  }
  transaction.commit();
}

}  // namespace keval
