#pragma once
// A timing job's hold on its device: shared while it sets up (fork, CUDA, imports, compiles,
// first outputs, input sets), alone only while it measures. Holding the device alone for the
// whole job left every other slot idle for seconds per submission.
//
// The job sends {"type": "device_alone"} and waits for the file device-alone-K (K = 0, 1, ...
// in the order of its requests) in its work folder, which appears once the device is its
// alone; {"type": "device_shared"} hands it back. The file's name is ours, never taken from the
// message: the child is untrusted. Whatever is still held is released when the gate goes.
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/device_lease.h"

namespace keval {

class TimingGate {
 public:
  TimingGate(DeviceLease& lease, std::filesystem::path work_dir);  // waits for a share
  ~TimingGate();
  TimingGate(const TimingGate&) = delete;
  TimingGate& operator=(const TimingGate&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return waited_.count(); }  // for the lease, over the job
  int granted() const { return granted_; }

 private:
  enum class Hold { kNone, kShared, kAlone };
  void wait_for(bool alone);

  DeviceLease& lease_;
  std::filesystem::path work_dir_;
  Hold hold_ = Hold::kNone;
  int granted_ = 0;
  std::chrono::duration<double> waited_{0};
};

}  // namespace keval
