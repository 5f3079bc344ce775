#pragma once
// keval serve without HTTP: accepting, answering and judging evaluation jobs. The HTTP layer
// (http_server.h) only maps routes to these calls, so the behaviour is tested with a fake
// evaluator and no sockets.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/batch_evaluator.h"
#include "serve/job_queue.h"
#include "serve/metrics.h"
#include "serve/reward_shaping.h"
#include "suite/suite.h"

namespace keval {

struct ServiceOptions {
  std::string default_preset = "quick";
  size_t max_batch = 64;        // jobs one keval run takes at most
  size_t max_batch_request = 1024;  // submissions one POST /v1/evaluate/batch may carry
  double gather_s = 0.25;  // an idle worker woken by a new job waits this long for the others sent with it
  double forget_after_s = 0;  // finished jobs leave queue.db this long after they end; 0: never
  // Requests that wait for a job at once (long polls, ?wait=); one more is answered at once
  // with the job's state, so waits never hold every HTTP thread. 0: no limit.
  size_t max_waiting = 0;
  std::optional<RewardShaping> reward;
  std::string suite_name;  // what /v1/health calls the suite ("" = its folder's name), never a path
};

struct Answer {
  int status = 200;
  nlohmann::json body;
};

class Service {
 public:
  Service(JobQueue& queue, const Suite& suite, BatchEvaluator& evaluator, ServiceOptions options);
  // One worker per evaluator (a lane): a lane takes the next batch while another still waits
  // for the slowest job of its own.
  Service(JobQueue& queue, const Suite& suite, std::vector<BatchEvaluator*> lanes, ServiceOptions options);
  ~Service();

  // POST /v1/evaluate. `header_key`: the Idempotency-Key header ("" = none; the body's "key"
  // is used then). Waits up to `wait_s` (else the preset's) for the result: 200 with it, else
  // 202 {"id", "state"} to poll.
  Answer evaluate(const std::string& body, const std::string& header_key, std::optional<double> wait_s);
  // POST /v1/evaluate/batch: 202 {"jobs": [{"id", "state"}...]}, in the submissions' order.
  Answer evaluate_batch(const std::string& body);
  // GET /v1/jobs/{id}; with `wait_s`, waits up to that long for the job to end (a long poll).
  Answer job(const std::string& id, double wait_s = 0);
  Answer cancel(const std::string& id);  // DELETE /v1/jobs/{id}
  Answer health();
  std::string metrics_text();
  Metrics& metrics() { return metrics_; }
  size_t waiting() const { return waiting_; }  // requests waiting for a job now

  // Judges one batch of queued jobs with lane `lane`; false when none was queued. Each lane's
  // worker loops on it.
  bool work_once(size_t lane = 0);
  void start();  // the lanes' worker threads
  void stop();   // lets the batches in progress end, then stops the workers

 private:
  nlohmann::json answer_of(const Job& job) const;
  std::optional<Job> wait_for(const std::string& id, double seconds);
  void notify();
  // With forget_after_s: drops finished jobs that ended longer ago, at most once a minute.
  void forget_old_jobs();

  JobQueue& queue_;
  const Suite& suite_;
  std::vector<BatchEvaluator*> lanes_;
  ServiceOptions options_;
  Metrics metrics_;
  std::mutex mutex_;
  std::condition_variable changed_;  // a job was queued or ended
  uint64_t version_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
  double started_at_ = 0;
  std::atomic<double> last_forgotten_at_{0};
  std::atomic<size_t> waiting_{0};
};

}  // namespace keval
