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
// The share is upgraded and downgraded in place (DeviceLease::upgrade/downgrade). While the
// job waits for the upgrade it is parked at its gate, so its share does not count: two timing
// jobs asking at once do not wait on each other, and a timing job setting up does not keep
// another from measuring for longer than its set-up's next pause point. Like any job it pauses
// on `device_paused` (share_gate.h). Whatever is held is released when the gate goes.
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/device_lease.h"
#include "engine/share_gate.h"

namespace keval {

class TimingGate {
 public:
  TimingGate(DeviceLease& lease, std::filesystem::path work_dir);  // waits for a share
  ~TimingGate();
  TimingGate(const TimingGate&) = delete;
  TimingGate& operator=(const TimingGate&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return share_.waited_s(); }  // for the lease, over the job
  int granted() const { return granted_; }

 private:
  DeviceLease& lease_;
  std::filesystem::path work_dir_;
  ShareGate share_;
  bool alone_ = false;
  int granted_ = 0;
};

}  // namespace keval
