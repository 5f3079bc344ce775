#include "serve/service.h"

#include <chrono>
#include <stdexcept>

#include "serve/request.h"
#include "serve/wall_clock.h"

namespace keval {
namespace {

bool final_state(const std::string& state) {
  return state == "done" || state == "failed" || state == "cancelled";
}

Answer error(int status, const std::string& field, const std::string& message) {
  return {status, {{"error", message}, {"field", field}}};
}

}  // namespace

Service::Service(JobQueue& queue, const Suite& suite, BatchEvaluator& evaluator, ServiceOptions options)
    : Service(queue, suite, std::vector<BatchEvaluator*>{&evaluator}, std::move(options)) {}

Service::Service(JobQueue& queue, const Suite& suite, std::vector<BatchEvaluator*> lanes, ServiceOptions options)
    : queue_(queue), suite_(suite), lanes_(std::move(lanes)), options_(std::move(options)), started_at_(unix_seconds()) {
  if (lanes_.empty()) throw std::invalid_argument("keval serve needs at least one lane");
}

Service::~Service() { stop(); }

void Service::notify() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++version_;
  }
  changed_.notify_all();
}

nlohmann::json Service::answer_of(const Job& job) const {
  nlohmann::json a = {{"id", job.id}, {"state", job.state}, {"preset", job.preset}, {"attempts", job.attempts},
                      {"task", job.request.value("task", "")}, {"submission_id", job.request.value("id", "")}};
  if (!job.key.empty()) a["key"] = job.key;
  if (job.state == "failed") a["error"] = job.error;
  if (job.state != "done" || !job.result.is_object()) return a;
  const auto& r = job.result;
  a["verdict"] = r.value("verdict", "");
  a["reasons"] = r.value("reasons", nlohmann::json::array());
  a["speedup"] = r.value("speedup", nlohmann::json(nullptr));
  a["speedup_ci"] = r.value("speedup_ci", nlohmann::json(nullptr));
  a["time_ms"] = r.value("time_ms", nlohmann::json(nullptr));
  a["ref_time_ms"] = r.value("ref_time_ms", nlohmann::json(nullptr));
  a["hack_flags"] = hack_flags(r);
  if (options_.reward) {
    const Reward reward = options_.reward->reward(r);
    a["reward"] = reward.value;
    a["reward_rung"] = reward.rung;
  }
  a["seconds"] = job.finished_at - job.created_at;
  a["result"] = r;
  return a;
}

std::optional<Job> Service::wait_for(const std::string& id, double seconds) {
  size_t now = waiting_.load();
  do {
    if (options_.max_waiting > 0 && now >= options_.max_waiting) return queue_.get(id);  // poll again
  } while (!waiting_.compare_exchange_weak(now, now + 1));
  struct Leave {
    std::atomic<size_t>& waiting;
    ~Leave() { --waiting; }
  } leave{waiting_};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      seen = version_;
    }
    auto job = queue_.get(id);
    if (!job || final_state(job->state) || std::chrono::steady_clock::now() >= deadline || stopping_) return job;
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return version_ != seen || stopping_; });
  }
}

Answer Service::evaluate(const std::string& body, const std::string& header_key, std::optional<double> wait_s) {
  EvaluateRequest request;
  try {
    request = read_evaluate_request(parse_body(body), suite_, options_.default_preset);
  } catch (const RequestError& e) {
    return {e.status, e.to_json()};
  }
  if (!header_key.empty()) request.key = header_key;
  const Enqueued enqueued = queue_.enqueue(request.key, request.preset, request.submission);
  if (enqueued.conflict) {
    return error(409, "key", "key \"" + request.key + "\" was used for a different request (job " + enqueued.job.id + ")");
  }
  if (enqueued.created) {
    metrics_.accepted(1);
    notify();
  }
  const double wait = wait_s ? *wait_s : find_preset(request.preset)->wait_s;
  std::optional<Job> job = wait > 0 ? wait_for(enqueued.job.id, wait) : enqueued.job;
  if (job && job->state == "done") return {200, answer_of(*job)};
  if (job && final_state(job->state)) return {200, answer_of(*job)};
  return {202, {{"id", enqueued.job.id}, {"state", job ? job->state : "queued"}}};
}

Answer Service::evaluate_batch(const std::string& body) {
  std::vector<EvaluateRequest> requests;
  try {
    requests = read_batch_request(parse_body(body), suite_, options_.default_preset, options_.max_batch_request);
  } catch (const RequestError& e) {
    return {e.status, e.to_json()};
  }
  nlohmann::json jobs = nlohmann::json::array();
  size_t created = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Enqueued enqueued = queue_.enqueue(requests[i].key, requests[i].preset, requests[i].submission);
    if (enqueued.conflict) {
      jobs.push_back({{"error", "key \"" + requests[i].key + "\" was used for a different request"},
                      {"field", "submissions[" + std::to_string(i) + "].key"}});
      continue;
    }
    created += enqueued.created;
    jobs.push_back({{"id", enqueued.job.id}, {"state", enqueued.job.state}});
  }
  if (created) {
    metrics_.accepted(created);
    notify();
  }
  return {202, {{"jobs", jobs}}};
}

Answer Service::job(const std::string& id, double wait_s) {
  auto job = wait_s > 0 ? wait_for(id, wait_s) : queue_.get(id);
  if (!job) return error(404, "id", "no job \"" + id + "\"");
  return {200, answer_of(*job)};
}

Answer Service::cancel(const std::string& id) {
  auto state = queue_.cancel(id);
  if (!state) return error(404, "id", "no job \"" + id + "\"");
  if (*state != "cancelled") return error(409, "id", "job \"" + id + "\" is " + *state + ": only a queued job can be cancelled");
  metrics_.finished("cancelled", 0);
  notify();
  return {200, answer_of(*queue_.get(id))};
}

Answer Service::health() {
  nlohmann::json preset_names = nlohmann::json::array();
  for (const auto& p : presets()) preset_names.push_back(p.name);
  return {200,
          {{"status", "ok"}, {"keval_version", KEVAL_VERSION}, {"suite", options_.suite_name.empty() ? suite_.dir().filename().string() : options_.suite_name},
           {"tasks", suite_.tasks().size()}, {"presets", preset_names}, {"default_preset", options_.default_preset},
           {"reward_shaping", options_.reward ? options_.reward->to_json() : nlohmann::json(nullptr)},
           {"queue", queue_.counts()}, {"requeued_at_start", queue_.requeued_at_start()},
           {"uptime_s", unix_seconds() - started_at_}, {"evaluator", lanes_.front()->describe()}, {"lanes", lanes_.size()}}};
}

std::string Service::metrics_text() { return metrics_.render(queue_.counts(), waiting_); }

void Service::forget_old_jobs() {
  if (options_.forget_after_s <= 0) return;
  const double t = unix_seconds();
  double last = last_forgotten_at_.load();
  if (t - last < 60 || !last_forgotten_at_.compare_exchange_strong(last, t)) return;
  queue_.forget_finished_before(t - options_.forget_after_s);
}

bool Service::work_once(size_t lane) {
  forget_old_jobs();
  BatchEvaluator& evaluator = *lanes_.at(lane);
  std::vector<Job> jobs = queue_.claim(options_.max_batch);
  if (jobs.empty()) return false;
  const Preset& preset = *find_preset(jobs.front().preset);
  std::vector<Submission> batch;
  for (const auto& job : jobs) {
    batch.push_back(usable_submission(job.request.value("task", ""), job.request.value("code", ""),
                                      job.request.value("id", ""), "job:" + job.id));
  }
  const double t0 = unix_seconds();
  // Each job ends as soon as its result is known: a cheap failure is not held back by the
  // batch's slowest candidate.
  std::vector<char> settled(jobs.size(), 0);
  std::mutex settled_mutex;
  auto settle = [&](size_t i, const nlohmann::json* result, const std::string& error) {
    {
      std::lock_guard<std::mutex> lock(settled_mutex);
      if (settled.at(i)) return;
      settled[i] = 1;
    }
    if (result) {
      queue_.finish(jobs[i].id, *result);
      metrics_.finished(result->value("verdict", "unknown"), unix_seconds() - jobs[i].created_at);
    } else {
      queue_.fail(jobs[i].id, error);
      metrics_.finished("failed", unix_seconds() - jobs[i].created_at);
    }
    notify();
  };
  try {
    const auto results = evaluator.evaluate(batch, preset, [&](size_t i, const nlohmann::json& result) {
      settle(i, &result, "");
    });
    for (size_t i = 0; i < jobs.size(); ++i) settle(i, &results.at(i), "");
  } catch (const std::exception& e) {
    for (size_t i = 0; i < jobs.size(); ++i) settle(i, nullptr, std::string("harness: ") + e.what());
  }
  metrics_.batch(jobs.size(), unix_seconds() - t0);
  notify();
  return true;
}

void Service::start() {
  for (size_t lane = 0; lane < lanes_.size(); ++lane) workers_.emplace_back([this, lane] {
    while (!stopping_) {
      uint64_t seen;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        seen = version_;
      }
      if (work_once(lane)) continue;
      std::unique_lock<std::mutex> lock(mutex_);
      if (changed_.wait_for(lock, std::chrono::seconds(1), [&] { return version_ != seen || stopping_; }) &&
          options_.gather_s > 0 && !stopping_) {
        // Clients of an RL step send together: one run for all of them costs one start-up.
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::duration<double>(options_.gather_s));
      }
    }
  });
}

void Service::stop() {
  stopping_ = true;
  changed_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  workers_.clear();
}

}  // namespace keval
