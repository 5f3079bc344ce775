#pragma once
// A job's share of its device gate, given back while the job does not need it.
//
// Pause: while a timing job waits for the device or has it alone (DeviceGate::hold_file), a
// running job stops at its next pause point, finishes its GPU work and sends
// {"type": "device_paused"}; the share goes back to the gate, a new one is taken (once no
// timing job holds or waits for the device), and the file device-resume-K (K = 0, 1, ... in the
// order of its pauses) in its work folder lets it go on.
//
// Idle stretch: {"type": "device_idle"} (the job finished its GPU work and goes on with CPU
// work only: Triton compiling, a file being written) gives the share back at once;
// {"type": "device_busy"} takes one again, and device-busy-K tells the job it may use the GPU.
//
// File names are ours, never taken from a message: the child is untrusted, and messages out of
// order never unbalance the gate.
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/devices/device_gate.h"

namespace keval {

// Creates the file a waiting job polls for (its go-ahead); a HarnessError if it cannot, since
// the job would otherwise wait until its deadline.
void create_go_ahead(const std::filesystem::path& file);

class DeviceGateShare {
 public:
  DeviceGateShare(DeviceGate& gate, std::filesystem::path work_dir);  // waits for a share
  ~DeviceGateShare();
  DeviceGateShare(const DeviceGateShare&) = delete;
  DeviceGateShare& operator=(const DeviceGateShare&) = delete;

  void on_message(const nlohmann::json& message);
  double waited_s() const { return waited_.count(); }  // for shares, over the job
  int pauses() const { return pauses_; }
  bool holding() const { return holding_; }

  // For DeviceGateAlone: the share, taken again if the job had given it back, becomes the device
  // alone (the gate's upgrade accounts for it); after the downgrade it is this share's again.
  void hand_over();
  void take_back() { holding_ = true; }
  void add_wait(std::chrono::duration<double> waited) { waited_ += waited; }

 private:
  void hold();  // a share, waiting for it if need be

  DeviceGate& gate_;
  std::filesystem::path work_dir_;
  bool holding_ = false;
  int pauses_ = 0;
  int busy_ = 0;
  std::chrono::duration<double> waited_{0};
};

}  // namespace keval
