#include "engine/devices/device_gate_share.h"

#include <fstream>

#include "engine/runner/runner_process.h"

namespace keval {

using Clock = std::chrono::steady_clock;

DeviceGateShare::DeviceGateShare(DeviceGate& gate, std::filesystem::path work_dir)
    : gate_(gate), work_dir_(std::move(work_dir)) {
  hold();
}

DeviceGateShare::~DeviceGateShare() {
  if (holding_) gate_.unlock_shared();
}

void DeviceGateShare::hold() {
  if (holding_) return;
  const auto asked = Clock::now();
  gate_.lock_shared();
  waited_ += Clock::now() - asked;
  holding_ = true;
}

void DeviceGateShare::hand_over() {
  hold();
  holding_ = false;  // DeviceGate::upgrade turns it into the device alone
}

void create_go_ahead(const std::filesystem::path& file) {
  if (!std::ofstream(file)) throw HarnessError("cannot create " + file.string() + " (a waiting job's go-ahead)");
}

void DeviceGateShare::on_message(const nlohmann::json& message) {
  if (!message.is_object()) return;
  const std::string type = message.value("type", "");
  if (type == "device_paused") {
    if (holding_) {
      gate_.unlock_shared();
      holding_ = false;
    }
    hold();
    create_go_ahead(work_dir_ / ("device-resume-" + std::to_string(pauses_++)));
  } else if (type == "device_idle") {
    if (holding_) {
      gate_.unlock_shared();
      holding_ = false;
    }
  } else if (type == "device_busy") {
    hold();
    create_go_ahead(work_dir_ / ("device-busy-" + std::to_string(busy_++)));
  }
}

}  // namespace keval
