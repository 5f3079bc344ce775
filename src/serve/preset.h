#pragma once
// keval serve's presets: how thoroughly one request is judged (seeds, timing budget, job
// deadline) and how long the request waits for its answer before it gets a job id to poll.
#include <string>
#include <vector>

#include "engine/settings/run_options.h"

namespace keval {

struct Preset {
  std::string name;
  int seeds = 2;
  bool timing = true;
  double timing_max_seconds = 0;  // per case, dtype and contender; 0 = the device's default
  int timeout_s = 0;              // per job; 0 = the device's default
  double wait_s = 30;             // POST /v1/evaluate answers the result if it is ready by then
  // One timed case per task, its largest in its first dtype: the timing job's cost is mostly
  // per case (warm-up, cover fits, samples), and a reward needs one speedup.
  bool time_largest_case_only = false;
};

// quick (a reward in an RL loop), standard (keval run's defaults), thorough (a leaderboard).
const std::vector<Preset>& presets();
// nullptr when unknown.
const Preset* find_preset(const std::string& name);
// The server's run options (`base`) as the preset has them; the server's --timeout and
// --no-timing win over the preset's.
RunOptions with_preset(RunOptions base, const Preset& preset);

}  // namespace keval
