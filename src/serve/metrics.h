#pragma once
// keval serve's counters, rendered as Prometheus text (GET /metrics).
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace keval {

class Metrics {
 public:
  void request(const std::string& route, int status);
  void accepted(size_t jobs);
  // A job that reached a final state; `seconds` from acceptance to then.
  void finished(const std::string& verdict_or_state, double seconds);
  void batch(size_t jobs, double seconds);
  // `queue`: jobs per state now (JobQueue::counts); `waiting`: requests waiting for a job now.
  std::string render(const std::map<std::string, size_t>& queue, size_t waiting) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, size_t> requests_;
  size_t accepted_ = 0;
  std::map<std::string, size_t> finished_;
  std::vector<size_t> latency_buckets_ = std::vector<size_t>(kBounds.size(), 0);
  size_t latency_count_ = 0;
  double latency_sum_ = 0;
  size_t batches_ = 0, batch_jobs_ = 0;
  double batch_seconds_ = 0;

  static inline const std::vector<double> kBounds = {0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600};
};

}  // namespace keval
