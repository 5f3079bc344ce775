#pragma once
// A timing job's hold on its device: shared while it sets up (fork, CUDA, imports, compiles,
// first outputs, input sets), alone only while it measures. Holding the device alone for the
// whole job left every other slot idle for seconds per submission.
//
// The job sends {"type": "device_alone"} and waits for the file device-alone-K (K = 0, 1, ...
// in the order of its requests) in its work folder, which appears once the device is its
// alone; {"type": "device_shared"} hands it back. The file's name is ours, never taken from the
// message: the child is untrusted.
//
// The share is upgraded and downgraded in place (DeviceLease::upgrade/downgrade): at no moment
// does the job hold nothing, so no other timing job measures while this job's code (and any
// thread its submission left running) can still use the device. Timing jobs of one device
// take turns (DeviceLease::timing_turn) so that two upgrades never wait on each other;
// correctness jobs still run beside a timing job's set-up. Whatever is held is released when
// the gate goes.
#include <chrono>
#include <filesystem>
#include <mutex>

#include <nlohmann/json.hpp>

#include "engine/device_lease.h"

namespace keval {

class TimingGate {
 public:
  TimingGate(DeviceLease& lease, std::filesystem::path work_dir);  // waits for its turn and a share
  ~TimingGate();
  TimingGate(const TimingGate&) = delete;
  TimingGate& operator=(const TimingGate&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return waited_.count(); }  // for the turn and the lease, over the job
  int granted() const { return granted_; }

 private:
  enum class Hold { kShared, kAlone };

  DeviceLease& lease_;
  std::filesystem::path work_dir_;
  std::unique_lock<std::mutex> turn_;
  Hold hold_ = Hold::kShared;
  int granted_ = 0;
  std::chrono::duration<double> waited_{0};
};

}  // namespace keval
