#include "engine/timing_gate.h"

#include <fstream>

#include "engine/runner_process.h"

namespace keval {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

TimingGate::TimingGate(DeviceLease& lease, std::filesystem::path work_dir)
    : lease_(lease), work_dir_(std::move(work_dir)) {
  const auto asked = Clock::now();
  turn_ = std::unique_lock<std::mutex>(lease_.timing_turn());
  lease_.lock_shared();
  waited_ += Clock::now() - asked;
}

TimingGate::~TimingGate() {
  if (hold_ == Hold::kShared) lease_.unlock_shared();
  if (hold_ == Hold::kAlone) lease_.unlock();
}

void TimingGate::on_message(const nlohmann::json& message) {
  if (!message.is_object()) return;
  const std::string type = message.value("type", "");
  if (type == "device_alone" && hold_ == Hold::kShared) {
    const auto asked = Clock::now();
    lease_.upgrade();
    hold_ = Hold::kAlone;
    waited_ += Clock::now() - asked;
    const auto signal = work_dir_ / ("device-alone-" + std::to_string(granted_++));
    if (!std::ofstream(signal)) {  // the job would wait for it until its deadline
      throw HarnessError("cannot create " + signal.string() + " (the timing job's go-ahead)");
    }
  } else if (type == "device_shared" && hold_ == Hold::kAlone) {
    lease_.downgrade();
    hold_ = Hold::kShared;
  }
}

}  // namespace keval
