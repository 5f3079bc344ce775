#pragma once
// Who may use one device at a time. Correctness jobs share it; a timing job has it alone: it
// waits for the running correctness jobs to end, and no new one starts until it is done (a
// waiting timing job goes first), so timed samples never share the GPU with another process's
// kernels.
#include <condition_variable>
#include <mutex>

namespace keval {

class DeviceLease {
 public:
  void lock_shared();    // a correctness job
  void unlock_shared();
  void lock();           // a timing job: alone on the device
  void unlock();
  bool try_lock();         // alone, only if free now
  bool try_lock_shared();  // shared, only if no timing job holds or waits for the device

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;         // correctness jobs on the device
  int waiting_alone_ = 0;   // timing jobs waiting (they block new correctness jobs)
  bool alone_ = false;      // a timing job holds the device
};

}  // namespace keval
