#include "engine/device_lease.h"

namespace keval {

void DeviceLease::lock_shared() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !alone_ && waiting_alone_ == 0; });
  ++sharing_;
}

void DeviceLease::unlock_shared() {
  std::lock_guard<std::mutex> lock(mutex_);
  --sharing_;
  changed_.notify_all();
}

void DeviceLease::lock() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
  --waiting_alone_;
  alone_ = true;
}

bool DeviceLease::try_lock() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (alone_ || sharing_ > 0) return false;
  alone_ = true;
  return true;
}

bool DeviceLease::try_lock_shared() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (alone_ || waiting_alone_ > 0) return false;
  ++sharing_;
  return true;
}

void DeviceLease::upgrade() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;  // no new share from now on
  changed_.wait(lock, [&] { return !alone_ && sharing_ == 1; });  // ours is the last one
  --waiting_alone_;
  --sharing_;
  alone_ = true;
}

void DeviceLease::downgrade() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  ++sharing_;
  changed_.notify_all();
}

void DeviceLease::unlock() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  changed_.notify_all();
}

}  // namespace keval
