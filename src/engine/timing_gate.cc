#include "engine/timing_gate.h"

namespace keval {

using Clock = std::chrono::steady_clock;

TimingGate::TimingGate(DeviceLease& lease, std::filesystem::path work_dir)
    : lease_(lease), work_dir_(work_dir), share_(lease, std::move(work_dir)) {}

TimingGate::~TimingGate() {
  if (alone_) lease_.unlock();  // the share became the device alone: ShareGate holds nothing
}

void TimingGate::on_message(const nlohmann::json& message) {
  if (!message.is_object()) return;
  const std::string type = message.value("type", "");
  if (type == "device_alone" && !alone_) {
    share_.hand_over();
    const auto asked = Clock::now();
    alone_ = true;
    lease_.upgrade();
    share_.add_wait(Clock::now() - asked);
    create_go_ahead(work_dir_ / ("device-alone-" + std::to_string(granted_++)));
  } else if (type == "device_shared" && alone_) {
    lease_.downgrade();
    alone_ = false;
    share_.take_back();
  } else if (!alone_) {
    share_.on_message(message);  // pauses and idle stretches while setting up
  }
}

}  // namespace keval
