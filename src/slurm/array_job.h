#pragma once
// A sharded evaluation as a Slurm job array: what each array task runs (`keval run --shard
// I/N` into OUT/shards/I), the batch script, and OUT/slurm/array.json, which records it and
// every job id it was submitted under, for `keval slurm status|resubmit|merge`.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct ArrayJob {
  std::string keval;        // absolute path of the keval binary the tasks run
  std::string suite;        // absolute where it is a folder; a peer spec (KIND:PATH) as given
  std::string submissions;  // likewise
  std::filesystem::path out;
  int shards = 1;
  int max_parallel = 0;     // %K: array tasks running at once; 0 = no limit
  int gpus_per_task = 0;
  int cpus_per_task = 0;    // 0 = Slurm's default
  std::string partition;
  std::string time;         // Slurm's --time, e.g. 2:00:00
  std::string job_name = "keval";
  std::vector<std::string> run_args;  // more options for every `keval run` (--device cpu, --no-timing ...)
  std::string python;       // KEVAL_PYTHON for the tasks; "" = inherit
  std::vector<std::string> job_ids;  // every submission of the array (the first, then resubmissions)

  std::filesystem::path slurm_dir() const { return out / "slurm"; }
  std::filesystem::path script_path() const { return slurm_dir() / "array.sh"; }
  std::filesystem::path record_path() const { return slurm_dir() / "array.json"; }
  std::filesystem::path shard_dir(int index) const { return out / "shards" / std::to_string(index); }

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the file and field.
  static ArrayJob load(const std::filesystem::path& out);
  void save() const;
};

// The sbatch script: #SBATCH lines, then one `keval run --shard $SLURM_ARRAY_TASK_ID/N`.
std::string array_script(const ArrayJob& job);

// sbatch's --array value for these shard indexes: "0-3" for a full range, else "1,3";
// "%K" appended when max_parallel > 0.
std::string array_spec(const std::vector<int>& indexes, int max_parallel);

// Single-quoted for bash.
std::string shell_quote(const std::string& text);

}  // namespace keval
