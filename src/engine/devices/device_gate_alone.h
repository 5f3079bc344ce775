#pragma once
// A timing job's pass through its device gate: a share while it sets up (fork, CUDA, imports, compiles,
// first outputs, input sets), alone only while it measures. Holding the device alone for the
// whole job left every other slot idle for seconds per submission.
//
// The job sends {"type": "device_alone"} and waits for the file device-alone-K (K = 0, 1, ...
// in the order of its requests) in its work folder, which appears once the device is its
// alone; {"type": "device_shared"} hands it back. The file's name is ours, never taken from the
// message: the child is untrusted.
//
// The share is upgraded and downgraded in place (DeviceGate::upgrade/downgrade). While the
// job waits for the upgrade it is parked at its gate, so its share does not count: two timing
// jobs asking at once do not wait on each other, and a timing job setting up does not keep
// another from measuring for longer than its set-up's next pause point. Like any job it pauses
// on `device_paused` (device_gate_share.h). Whatever is held is released when the pass goes.
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/devices/device_gate.h"
#include "engine/devices/device_gate_share.h"

namespace keval {

class DeviceGateAlone {
 public:
  DeviceGateAlone(DeviceGate& gate, std::filesystem::path work_dir);  // waits for a share
  ~DeviceGateAlone();
  DeviceGateAlone(const DeviceGateAlone&) = delete;
  DeviceGateAlone& operator=(const DeviceGateAlone&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return share_.waited_s(); }  // at the gate, over the job
  int granted() const { return granted_; }

 private:
  DeviceGate& gate_;
  std::filesystem::path work_dir_;
  DeviceGateShare share_;
  bool alone_ = false;
  int granted_ = 0;
};

}  // namespace keval
