#pragma once
// keval serve's presets: how thoroughly one request is judged (seeds, timing budget, job
// deadline) and how long the request waits for its answer before it gets a job id to poll.
#include <string>
#include <vector>

namespace keval {

struct Preset {
  std::string name;
  int seeds = 2;
  bool timing = true;
  double timing_max_seconds = 0;  // per case, dtype and contender; 0 = the device's default
  int timeout_s = 0;              // per job; 0 = the device's default
  double wait_s = 30;             // POST /v1/evaluate answers the result if it is ready by then
};

// quick (a reward in an RL loop), standard (keval run's defaults), thorough (a leaderboard).
const std::vector<Preset>& presets();
// nullptr when unknown.
const Preset* find_preset(const std::string& name);

}  // namespace keval
