#pragma once
// keval serve's queue of evaluation jobs, kept in SQLite (OUT/queue.db), so a server that is
// killed and started again loses no accepted job and runs none that had finished: a job is
// committed before its id is answered, and its result is committed when its batch ends. A job
// that was running when the server died is queued again (its finished evaluations are in
// keval.db and resume by evaluation key).
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/sqlite_db.h"

namespace keval {

struct Job {
  std::string id;
  std::string key;     // the client's idempotency key; "" = none
  std::string state;   // queued, running, done, failed, cancelled
  std::string preset;
  nlohmann::json request;  // {"task", "code", "id"} as accepted
  nlohmann::json result;   // the judged result (results.jsonl's form), when done
  std::string error;       // when failed: the harness's one-line reason
  int attempts = 0;        // times a batch took it (2 after a restart mid-batch)
  double created_at = 0, started_at = 0, finished_at = 0;  // unix seconds
};

struct Enqueued {
  Job job;
  bool created = false;   // false: the key was known and the same request is answered again
  bool conflict = false;  // the key was known with a different request
};

class JobQueue {
 public:
  // Opens or creates the queue. Jobs left running by a previous server are queued again.
  explicit JobQueue(const std::filesystem::path& path);
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // Adds a job, or with a known key answers its job (conflict when the request differs).
  Enqueued enqueue(const std::string& key, const std::string& preset, const nlohmann::json& request);
  std::optional<Job> get(const std::string& id);
  // Takes up to `max` queued jobs, oldest first, all of the oldest one's preset; marks them running.
  std::vector<Job> claim(size_t max);
  void finish(const std::string& id, const nlohmann::json& result);
  void fail(const std::string& id, const std::string& error);
  // Cancels a queued job. Returns its state afterwards ("cancelled", or the state that
  // prevented it); nullopt when unknown.
  std::optional<std::string> cancel(const std::string& id);
  // Deletes the done, failed and cancelled jobs that finished before `unix_seconds`; returns
  // how many. Their evaluations stay in keval.db: a retry of one is answered from there.
  size_t forget_finished_before(double unix_seconds);
  std::map<std::string, size_t> counts();
  size_t requeued_at_start() const { return requeued_at_start_; }

 private:
  std::mutex mutex_;
  SqliteDb db_;
  size_t requeued_at_start_ = 0;
};

}  // namespace keval
