#include "engine/share_gate.h"

#include <fstream>

#include "engine/runner_process.h"

namespace keval {

using Clock = std::chrono::steady_clock;

ShareGate::ShareGate(DeviceLease& lease, std::filesystem::path work_dir)
    : lease_(lease), work_dir_(std::move(work_dir)) {
  const auto asked = Clock::now();
  lease_.lock_shared();
  waited_ += Clock::now() - asked;
}

ShareGate::~ShareGate() {
  if (!handed_over_) lease_.unlock_shared();
}

void ShareGate::on_message(const nlohmann::json& message) {
  if (handed_over_ || !message.is_object() || message.value("type", "") != "device_paused") return;
  const auto asked = Clock::now();
  lease_.unlock_shared();
  lease_.lock_shared();
  waited_ += Clock::now() - asked;
  const auto signal = work_dir_ / ("device-resume-" + std::to_string(pauses_++));
  if (!std::ofstream(signal)) {  // the job would wait for it until its deadline
    throw HarnessError("cannot create " + signal.string() + " (a paused job's go-ahead)");
  }
}

}  // namespace keval
