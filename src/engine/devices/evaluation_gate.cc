#include "engine/devices/evaluation_gate.h"

#include <algorithm>

namespace keval {

void EvaluationGate::begin() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_;
  changed_.wait(lock, [&] { return (limit_ == 0 || running_ < limit_) && !alone_ && waiting_alone_ == 0; });
  --waiting_;
  ++running_;
}

void EvaluationGate::begin_alone() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  crowd_ = running_;
  // every running evaluation is this one or another waiting its turn alone (<=: a caller
  // outside any share, as in tests, waits for none)
  changed_.wait(lock, [&] { return !alone_ && running_ <= waiting_alone_; });
  --waiting_alone_;
  alone_ = true;
}

void EvaluationGate::end_alone() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  changed_.notify_all();
}

void EvaluationGate::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  --running_;
  if (limit_ > 0 && ++clean_ends_ >= kEndsBeforeGrowing) {
    clean_ends_ = 0;
    limit_ = limit_ + 1 >= most_ ? 0 : limit_ + 1;
  }
  changed_.notify_all();
}

int EvaluationGate::shrink() {
  std::lock_guard<std::mutex> lock(mutex_);
  // the crowd when it asked to be alone: by now every other evaluation has ended
  const int crowd = std::max(crowd_, running_);
  if (limit_ == 0) most_ = std::max(most_, crowd);
  const int now = limit_ == 0 ? crowd : std::min(limit_, crowd);
  limit_ = std::max(1, now / 2);
  clean_ends_ = 0;
  ++shrinks_;
  return limit_;
}

int EvaluationGate::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

int EvaluationGate::out_of_memory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shrinks_;
}

EvaluationGate::State EvaluationGate::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {running_, waiting_, waiting_alone_, alone_};
}

}  // namespace keval
