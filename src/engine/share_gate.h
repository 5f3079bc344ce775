#pragma once
// A job's share of its device, given back while the job is paused. While a timing job waits
// for the device or has it alone (DeviceLease::hold_file), a running job stops at its next
// pause point, finishes its GPU work and sends {"type": "device_paused"}; the share goes back
// to the lease, a new one is taken (once no timing job holds or waits for the device), and the
// file device-resume-K (K = 0, 1, ... in the order of its pauses) in its work folder lets it go
// on. The file's name is ours, never taken from the message: the child is untrusted.
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/device_lease.h"

namespace keval {

class ShareGate {
 public:
  ShareGate(DeviceLease& lease, std::filesystem::path work_dir);  // waits for a share
  ~ShareGate();
  ShareGate(const ShareGate&) = delete;
  ShareGate& operator=(const ShareGate&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return waited_.count(); }  // for shares, over the job
  int pauses() const { return pauses_; }

  // For a gate whose share may become more (TimingGate): the share is now accounted for
  // elsewhere (true) or again by this gate (false).
  void set_handed_over(bool handed_over) { handed_over_ = handed_over; }
  void add_wait(std::chrono::duration<double> waited) { waited_ += waited; }

 private:
  DeviceLease& lease_;
  std::filesystem::path work_dir_;
  bool handed_over_ = false;
  int pauses_ = 0;
  std::chrono::duration<double> waited_{0};
};

}  // namespace keval
