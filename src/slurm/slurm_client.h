#pragma once
// The few Slurm commands keval needs (sbatch, squeue), run through a CommandRunner.
#include <map>
#include <string>
#include <vector>

#include "slurm/command_runner.h"

namespace keval {

class SlurmClient {
 public:
  explicit SlurmClient(CommandRunner& runner) : runner_(runner) {}

  // `sbatch --parsable --array=SPEC SCRIPT`; returns the job id. Throws std::runtime_error with
  // sbatch's own message when it refuses.
  std::string submit(const std::string& script, const std::string& array);

  // Array task index -> Slurm state (PENDING, RUNNING, ...) for the tasks of these jobs that
  // Slurm still lists. Where a task index appears under several jobs (a resubmission), the
  // latest job's state wins. Throws when squeue fails.
  std::map<int, std::string> queued(const std::vector<std::string>& job_ids);

 private:
  CommandRunner& runner_;
};

}  // namespace keval
