#pragma once
// The device gate: which of a GPU's jobs may use it. Correctness jobs pass it with a share; a
// timing job measures with the device alone: it waits for the running jobs to end or pause, and
// no new share starts until it is done (a waiting timing job goes first), so timed samples
// never share the GPU with another process's kernels. A job holds its share through a
// DeviceGateShare; a timing job sets up under a share and upgrades it (DeviceGateAlone).
// The runner's side of the gate is runner/keval_runner/device/device_gate.py; a GPU's evaluations as
// a whole pass an EvaluationGate first.
#include <condition_variable>
#include <filesystem>
#include <mutex>

namespace keval {

class DeviceGate {
 public:
  void lock_shared();    // a correctness job, or a timing job setting up
  void unlock_shared();
  void lock();           // alone on the device
  void unlock();
  bool try_lock();         // alone, only if free now
  bool try_lock_shared();  // shared, only if no timing job holds or waits for the device
  // A share turned into having the device alone and back. While it waits, the asking job is
  // parked at its gate (it runs nothing of its own), so its share is given back: two timing
  // jobs upgrading at once then never wait on each other. No new share starts from the moment
  // it asks.
  void upgrade();
  void downgrade();
  // The file that exists while a timing job waits for the device or has it alone; running
  // jobs that find it pause at their next call (device_gate.py's pause_point), so a timing job
  // waits for the call in flight, not for the rest of each job. Empty: none kept.
  void set_hold_file(std::filesystem::path file);
  std::filesystem::path hold_file() const;

  // Who holds and who waits, now: lets a test wait until a job has reached the gate instead
  // of guessing how long its thread takes to get there.
  struct State {
    int sharing = 0;
    int shares_waiting = 0;   // in lock_shared(), held back
    int timing_waiting = 0;   // in lock() or upgrade(), waiting for the device alone
    bool alone = false;
  };
  State state() const;

 private:
  void update_hold_file();  // with mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;         // jobs holding a share
  int shares_waiting_ = 0;  // jobs waiting for a share
  int waiting_alone_ = 0;   // timing jobs waiting (they block new shares)
  bool alone_ = false;      // a timing job holds the device
  std::filesystem::path hold_file_;
  bool hold_file_exists_ = false;
};

}  // namespace keval
