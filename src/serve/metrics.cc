#include "serve/metrics.h"

#include <sstream>

namespace keval {

void Metrics::request(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
}

void Metrics::accepted(size_t jobs) {
  std::lock_guard<std::mutex> lock(mutex_);
  accepted_ += jobs;
}

void Metrics::finished(const std::string& verdict_or_state, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_[verdict_or_state];
  for (size_t i = 0; i < kBounds.size(); ++i) latency_buckets_[i] += seconds <= kBounds[i];
  ++latency_count_;
  latency_sum_ += seconds;
}

void Metrics::batch(size_t jobs, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++batches_;
  batch_jobs_ += jobs;
  batch_seconds_ += seconds;
}

std::string Metrics::render(const std::map<std::string, size_t>& queue, size_t waiting) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::ostringstream out;
  out << "# HELP keval_http_requests_total HTTP requests answered, by route and status.\n"
      << "# TYPE keval_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out << "keval_http_requests_total{route=\"" << key.first << "\",code=\"" << key.second << "\"} " << n << "\n";
  }
  out << "# HELP keval_jobs_accepted_total Evaluation jobs accepted since the server started.\n"
      << "# TYPE keval_jobs_accepted_total counter\n"
      << "keval_jobs_accepted_total " << accepted_ << "\n"
      << "# HELP keval_jobs_finished_total Jobs judged (by verdict) or ended otherwise (failed, cancelled).\n"
      << "# TYPE keval_jobs_finished_total counter\n";
  for (const auto& [verdict, n] : finished_) out << "keval_jobs_finished_total{verdict=\"" << verdict << "\"} " << n << "\n";
  out << "# HELP keval_jobs Jobs in the queue by state (all time, from queue.db).\n"
      << "# TYPE keval_jobs gauge\n";
  for (const auto& [state, n] : queue) out << "keval_jobs{state=\"" << state << "\"} " << n << "\n";
  out << "# HELP keval_job_latency_seconds From acceptance to a final state.\n"
      << "# TYPE keval_job_latency_seconds histogram\n";
  for (size_t i = 0; i < kBounds.size(); ++i) {
    out << "keval_job_latency_seconds_bucket{le=\"" << kBounds[i] << "\"} " << latency_buckets_[i] << "\n";
  }
  out << "keval_job_latency_seconds_bucket{le=\"+Inf\"} " << latency_count_ << "\n"
      << "keval_job_latency_seconds_sum " << latency_sum_ << "\n"
      << "keval_job_latency_seconds_count " << latency_count_ << "\n"
      << "# HELP keval_batches_total Batches evaluated (one keval run each).\n"
      << "# TYPE keval_batches_total counter\n"
      << "keval_batches_total " << batches_ << "\n"
      << "# TYPE keval_batch_jobs_total counter\n"
      << "keval_batch_jobs_total " << batch_jobs_ << "\n"
      << "# TYPE keval_batch_seconds_total counter\n"
      << "keval_batch_seconds_total " << batch_seconds_ << "\n"
      << "# HELP keval_requests_waiting Requests waiting for a job now (long polls, ?wait=).\n"
      << "# TYPE keval_requests_waiting gauge\n"
      << "keval_requests_waiting " << waiting << "\n";
  return out.str();
}

}  // namespace keval
