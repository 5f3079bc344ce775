#include "engine/timing_gate.h"

#include <fstream>

#include "engine/runner_process.h"

namespace keval {

TimingGate::TimingGate(DeviceLease& lease, std::filesystem::path work_dir)
    : lease_(lease), work_dir_(std::move(work_dir)) {
  wait_for(false);
}

TimingGate::~TimingGate() {
  if (hold_ == Hold::kShared) lease_.unlock_shared();
  if (hold_ == Hold::kAlone) lease_.unlock();
}

void TimingGate::wait_for(bool alone) {
  const auto started = std::chrono::steady_clock::now();
  if (alone) {
    lease_.lock();
    hold_ = Hold::kAlone;
  } else {
    lease_.lock_shared();
    hold_ = Hold::kShared;
  }
  waited_ += std::chrono::steady_clock::now() - started;
}

void TimingGate::on_message(const nlohmann::json& message) {
  if (!message.is_object()) return;
  const std::string type = message.value("type", "");
  if (type == "device_alone" && hold_ == Hold::kShared) {
    // Our share first: a writer-preferring lease would otherwise wait for us forever.
    lease_.unlock_shared();
    hold_ = Hold::kNone;
    wait_for(true);
    const auto signal = work_dir_ / ("device-alone-" + std::to_string(granted_++));
    if (!std::ofstream(signal)) {  // the job would wait for it until its deadline
      throw HarnessError("cannot create " + signal.string() + " (the timing job's go-ahead)");
    }
  } else if (type == "device_shared" && hold_ == Hold::kAlone) {
    lease_.unlock();
    hold_ = Hold::kNone;
    wait_for(false);
  }
}

}  // namespace keval
