#include "serve/job_queue.h"

#include <chrono>
#include <random>

#include "serve/wall_clock.h"
#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, key TEXT UNIQUE,
  state TEXT NOT NULL, preset TEXT NOT NULL, request_json TEXT NOT NULL, result_json TEXT,
  error TEXT, attempts INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL, started_at REAL,
  finished_at REAL);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, seq);
)sql";

std::string new_id() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random()));
  return text;
}

const char* kColumns = "id, key, state, preset, request_json, result_json, error, attempts, created_at, started_at, finished_at";

Job job_from(Statement& row) {
  Job job;
  job.id = row.text(0);
  job.key = row.text(1);
  job.state = row.text(2);
  job.preset = row.text(3);
  job.request = nlohmann::json::parse(row.text(4));
  job.result = row.is_null(5) ? nlohmann::json(nullptr) : nlohmann::json::parse(row.text(5));
  job.error = row.text(6);
  job.attempts = static_cast<int>(row.integer(7));
  job.created_at = row.real(8).value_or(0);
  job.started_at = row.real(9).value_or(0);
  job.finished_at = row.real(10).value_or(0);
  return job;
}

}  // namespace

JobQueue::JobQueue(const std::filesystem::path& path) : db_(path, SqliteDb::Mode::kReadWrite, "the job queue") {
  db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  db_.exec(kSchema);
  db_.exec("UPDATE jobs SET state = 'queued' WHERE state = 'running'");
  requeued_at_start_ = static_cast<size_t>(sqlite3_changes(db_.get()));
}

Enqueued JobQueue::enqueue(const std::string& key, const std::string& preset, const nlohmann::json& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!key.empty()) {
    Statement known(db_.get(), std::string("SELECT ") + kColumns + " FROM jobs WHERE key = ?");
    known.bind(1, key);
    if (known.step()) {
      Job job = job_from(known);
      return {job, false, job.request != request || job.preset != preset};
    }
  }
  Statement insert(db_.get(), "INSERT INTO jobs(id, key, state, preset, request_json, created_at) VALUES(?,?,?,?,?,?)");
  Job job;
  job.id = new_id();
  job.key = key;
  job.state = "queued";
  job.preset = preset;
  job.request = request;
  job.created_at = unix_seconds();
  insert.bind(1, job.id).bind(3, job.state).bind(4, preset).bind(5, request.dump())
      .bind(6, std::optional<double>(job.created_at));
  if (!key.empty()) insert.bind(2, key);  // NULL otherwise: many jobs may have no key
  insert.run();
  return {job, true, false};
}

std::optional<Job> JobQueue::get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement query(db_.get(), std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?");
  query.bind(1, id);
  if (!query.step()) return std::nullopt;
  return job_from(query);
}

std::vector<Job> JobQueue::claim(size_t max) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Job> jobs;
  Transaction transaction(db_);
  {  // the statements end before the commit
    Statement query(db_.get(), std::string("SELECT ") + kColumns +
                             " FROM jobs WHERE state = 'queued' AND preset = (SELECT preset FROM jobs WHERE "
                             "state = 'queued' ORDER BY seq LIMIT 1) ORDER BY seq LIMIT ?");
    query.bind(1, static_cast<int64_t>(max));
    while (query.step()) jobs.push_back(job_from(query));
    Statement mark(db_.get(), "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ? WHERE id = ?");
    const double t = unix_seconds();
    for (auto& job : jobs) {
      mark.bind(1, std::optional<double>(t)).bind(2, job.id);
      mark.run();
      mark.reset();
      job.state = "running";
      ++job.attempts;
      job.started_at = t;
    }
  }
  transaction.commit();
  return jobs;
}

void JobQueue::finish(const std::string& id, const nlohmann::json& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement update(db_.get(), "UPDATE jobs SET state = 'done', result_json = ?, finished_at = ? WHERE id = ? AND state = 'running'");
  update.bind(1, result.dump()).bind(2, std::optional<double>(unix_seconds())).bind(3, id);
  update.run();
}

void JobQueue::fail(const std::string& id, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement update(db_.get(), "UPDATE jobs SET state = 'failed', error = ?, finished_at = ? WHERE id = ? AND state = 'running'");
  update.bind(1, error).bind(2, std::optional<double>(unix_seconds())).bind(3, id);
  update.run();
}

std::optional<std::string> JobQueue::cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement update(db_.get(), "UPDATE jobs SET state = 'cancelled', finished_at = ? WHERE id = ? AND state = 'queued'");
  update.bind(1, std::optional<double>(unix_seconds())).bind(2, id);
  update.run();
  Statement query(db_.get(), "SELECT state FROM jobs WHERE id = ?");
  query.bind(1, id);
  if (!query.step()) return std::nullopt;
  return query.text(0);
}

size_t JobQueue::forget_finished_before(double unix_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement remove(db_.get(), "DELETE FROM jobs WHERE state IN ('done', 'failed', 'cancelled') AND finished_at < ?");
  remove.bind(1, std::optional<double>(unix_seconds));
  remove.run();
  return static_cast<size_t>(sqlite3_changes(db_.get()));
}

std::map<std::string, size_t> JobQueue::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, size_t> counts = {{"queued", 0}, {"running", 0}, {"done", 0}, {"failed", 0}, {"cancelled", 0}};
  Statement query(db_.get(), "SELECT state, count(*) FROM jobs GROUP BY state");
  while (query.step()) counts[query.text(0)] = static_cast<size_t>(query.integer(1));
  return counts;
}

}  // namespace keval
