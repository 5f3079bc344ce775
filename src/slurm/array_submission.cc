#include "slurm/array_submission.h"

#include <fstream>

namespace keval {

std::string submit_shards(ArrayJob& job, SlurmClient& slurm, const std::vector<int>& indexes) {
  std::filesystem::create_directories(job.slurm_dir() / "logs");
  std::filesystem::create_directories(job.out / "shards");
  {
    std::ofstream script(job.script_path());
    script << array_script(job);
  }
  std::filesystem::permissions(job.script_path(), std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  // The record is saved before sbatch runs, so a failed submission still leaves what was meant.
  job.save();
  const std::string id = slurm.submit(job.script_path().string(), array_spec(indexes, job.max_parallel));
  job.job_ids.push_back(id);
  job.save();
  return id;
}

std::vector<int> shards_to_resubmit(const std::vector<ShardStatus>& statuses) {
  std::vector<int> indexes;
  for (const auto& s : statuses) {
    if (s.state == "stopped") indexes.push_back(s.index);
  }
  return indexes;
}

}  // namespace keval
