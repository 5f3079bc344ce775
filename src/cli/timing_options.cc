// --max-seconds, --max-samples and --min-samples: how long each case is timed; --baseline: against what
// (commands.h).
#include "cli/commands.h"
#include "engine/session/run_session.h"

namespace keval {

void add_timing_limit_options(CLI::App* cmd, RunOptions* options) {
  cmd->add_option("--max-seconds", options->timing_max_seconds,
                  "timing: seconds of samples per case at most (default 0.25 on a GPU, 0.2 on the CPU)")
      ->check(CLI::Range(0.001, 60.0));
  cmd->add_option("--max-samples", options->timing_max_samples,
                  "timing: samples per case at most (default 100 on a GPU, 3 on the CPU)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--min-samples", options->timing_min_samples,
                  "timing: samples per case before the stopping rule may stop, the time cap included "
                  "(default 10 on a GPU, 2 on the CPU); the sample cap rises to it, so --min-samples N "
                  "--max-samples N takes N samples of every case (a record bench/stop_rule_replay.py "
                  "replays other stopping rules on)")
      ->check(CLI::Range(1, 100000));
}

void add_baseline_option(CLI::App* cmd, std::vector<std::string>& baselines, const std::string& help) {
  cmd->add_option("--baseline", baselines, help)
      ->delimiter(',')
      ->check(CLI::IsMember({"golden", "eager", "compile"}));
}

}  // namespace keval
