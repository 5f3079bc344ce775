#include "engine/evaluation_limit.h"

#include <algorithm>

namespace keval {

void EvaluationLimit::begin() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return (limit_ == 0 || running_ < limit_) && !alone_ && waiting_alone_ == 0; });
  ++running_;
}

void EvaluationLimit::begin_alone() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  // every running evaluation is this one or another waiting its turn alone (<=: a caller
  // outside any place, as in tests, waits for none)
  changed_.wait(lock, [&] { return !alone_ && running_ <= waiting_alone_; });
  --waiting_alone_;
  alone_ = true;
}

void EvaluationLimit::end_alone() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  changed_.notify_all();
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
