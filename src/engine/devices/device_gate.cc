#include "engine/devices/device_gate.h"

#include <fstream>

namespace keval {

void DeviceGate::lock_shared() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++shares_waiting_;
  changed_.wait(lock, [&] { return !alone_ && waiting_alone_ == 0; });
  --shares_waiting_;
  ++sharing_;
}

void DeviceGate::unlock_shared() {
  std::lock_guard<std::mutex> lock(mutex_);
  --sharing_;
  changed_.notify_all();
}

void DeviceGate::lock() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  update_hold_file();
  changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
  --waiting_alone_;
  alone_ = true;
}

bool DeviceGate::try_lock() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (alone_ || sharing_ > 0) return false;
  alone_ = true;
  update_hold_file();
  return true;
}

bool DeviceGate::try_lock_shared() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (alone_ || waiting_alone_ > 0) return false;
  ++sharing_;
  return true;
}

void DeviceGate::upgrade() {
  std::unique_lock<std::mutex> lock(mutex_);
  --sharing_;         // parked: the job waits at its gate
  ++waiting_alone_;   // no new share from now on
  update_hold_file();
  changed_.notify_all();
  changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
  --waiting_alone_;
  alone_ = true;
}

void DeviceGate::downgrade() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  ++sharing_;
  update_hold_file();
  changed_.notify_all();
}

void DeviceGate::unlock() {
  std::lock_guard<std::mutex> lock(mutex_);
  alone_ = false;
  update_hold_file();
  changed_.notify_all();
}

void DeviceGate::set_hold_file(std::filesystem::path file) {
  std::lock_guard<std::mutex> lock(mutex_);
  hold_file_ = std::move(file);
  hold_file_exists_ = false;
  update_hold_file();
}

std::filesystem::path DeviceGate::hold_file() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hold_file_;
}

DeviceGate::State DeviceGate::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {sharing_, shares_waiting_, waiting_alone_, alone_};
}

void DeviceGate::update_hold_file() {
  if (hold_file_.empty()) return;
  const bool wanted = alone_ || waiting_alone_ > 0;
  if (wanted == hold_file_exists_) return;
  // Only a hint to the jobs: without the file they run to their end instead of pausing.
  std::error_code ignored;
  if (wanted) {
    std::ofstream(hold_file_).flush();
  } else {
    std::filesystem::remove(hold_file_, ignored);
  }
  hold_file_exists_ = wanted;
}

}  // namespace keval
