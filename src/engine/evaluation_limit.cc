#include "engine/evaluation_limit.h"

#include <algorithm>

namespace keval {

void EvaluationLimit::begin() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return limit_ == 0 || running_ < limit_; });
  ++running_;
}

void EvaluationLimit::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  --running_;
  changed_.notify_all();
}

int EvaluationLimit::shrink() {
  std::lock_guard<std::mutex> lock(mutex_);
  const int now = limit_ == 0 ? running_ : std::min(limit_, running_);
  limit_ = std::max(1, now / 2);
  ++shrinks_;
  return limit_;
}

int EvaluationLimit::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

int EvaluationLimit::out_of_memory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shrinks_;
}

}  // namespace keval
