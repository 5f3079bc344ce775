#include "engine/devices/device_gate_alone.h"

namespace keval {

using Clock = std::chrono::steady_clock;

DeviceGateAlone::DeviceGateAlone(DeviceGate& gate, std::filesystem::path work_dir)
    : gate_(gate), work_dir_(work_dir), share_(gate, std::move(work_dir)) {}

DeviceGateAlone::~DeviceGateAlone() {
  if (alone_) gate_.unlock();  // the share became the device alone: DeviceGateShare holds nothing
}

void DeviceGateAlone::on_message(const nlohmann::json& message) {
  if (!message.is_object()) return;
  const std::string type = message.value("type", "");
  if (type == "device_alone" && !alone_) {
    share_.hand_over();
    const auto asked = Clock::now();
    alone_ = true;
    gate_.upgrade();
    share_.add_wait(Clock::now() - asked);
    create_go_ahead(work_dir_ / ("device-alone-" + std::to_string(granted_++)));
  } else if (type == "device_shared" && alone_) {
    gate_.downgrade();
    alone_ = false;
    share_.take_back();
  } else if (!alone_) {
    share_.on_message(message);  // pauses and idle stretches while setting up
  }
}

}  // namespace keval
