#pragma once
// Who may use one device at a time. Correctness jobs share it; a timing job measures with it
// alone: it waits for the running correctness jobs to end, and no new one starts until it is
// done (a waiting timing job goes first), so timed samples never share the GPU with another
// process's kernels. A timing job sets up under a share and upgrades it (timing_gate.h).
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
  // A share turned into having the device alone and back, with no moment between in which
  // another job could take it. Only the holder of timing_turn() may upgrade: two sharers
  // upgrading at once would each wait for the other's share.
  void upgrade();
  void downgrade();
  std::mutex& timing_turn() { return timing_turn_; }  // one timing job per device at a time

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;         // correctness jobs on the device
  int waiting_alone_ = 0;   // timing jobs waiting (they block new correctness jobs)
  bool alone_ = false;      // a timing job holds the device
  std::mutex timing_turn_;
};

}  // namespace keval
