#include "slurm/array_job.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace keval {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

nlohmann::json ArrayJob::to_json() const {
  return {{"keval", keval}, {"suite", suite}, {"submissions", submissions}, {"out", out.string()},
          {"shards", shards}, {"max_parallel", max_parallel}, {"gpus_per_task", gpus_per_task},
          {"cpus_per_task", cpus_per_task}, {"partition", partition}, {"time", time},
          {"job_name", job_name}, {"run_args", run_args}, {"python", python}, {"job_ids", job_ids}};
}

ArrayJob ArrayJob::load(const std::filesystem::path& out) {
  ArrayJob job;
  job.out = out;
  const auto path = job.record_path();
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": no such file (was the array submitted with keval slurm submit --out " + out.string() + "?)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": not JSON: " + e.what());
  }
  auto field = [&](const char* name, auto& value) {
    try {
      value = j.at(name).get<std::decay_t<decltype(value)>>();
    } catch (const std::exception& e) {
      throw std::runtime_error(path.string() + ": field \"" + name + "\": " + e.what());
    }
  };
  field("keval", job.keval);
  field("suite", job.suite);
  field("submissions", job.submissions);
  field("shards", job.shards);
  field("max_parallel", job.max_parallel);
  field("gpus_per_task", job.gpus_per_task);
  field("cpus_per_task", job.cpus_per_task);
  field("partition", job.partition);
  field("time", job.time);
  field("job_name", job.job_name);
  field("run_args", job.run_args);
  field("python", job.python);
  field("job_ids", job.job_ids);
  if (job.shards < 1) throw std::runtime_error(path.string() + ": field \"shards\": must be at least 1");
  return job;
}

void ArrayJob::save() const {
  std::filesystem::create_directories(slurm_dir());
  const auto temp = record_path().string() + ".tmp";
  std::ofstream(temp) << to_json().dump(2) << "\n";
  std::filesystem::rename(temp, record_path());
}

std::string array_script(const ArrayJob& job) {
  std::ostringstream s;
  const std::string logs = (job.slurm_dir() / "logs").string();
  s << "#!/bin/bash\n"
    << "# Written by keval slurm submit: one array task per shard; each runs `keval run --shard I/N`\n"
    << "# into its own folder, so a task that is run again resumes and re-runs nothing it finished.\n"
    << "#SBATCH --job-name=" << job.job_name << "\n"
    << "#SBATCH --output=" << logs << "/%A_%a.out\n"
    << "#SBATCH --ntasks=1\n";
  if (job.gpus_per_task > 0) s << "#SBATCH --gpus-per-task=" << job.gpus_per_task << "\n";
  if (job.cpus_per_task > 0) s << "#SBATCH --cpus-per-task=" << job.cpus_per_task << "\n";
  if (!job.partition.empty()) s << "#SBATCH --partition=" << job.partition << "\n";
  if (!job.time.empty()) s << "#SBATCH --time=" << job.time << "\n";
  s << "set -euo pipefail\n";
  if (!job.python.empty()) s << "export KEVAL_PYTHON=" << shell_quote(job.python) << "\n";
  s << "shard=\"$SLURM_ARRAY_TASK_ID\"\n"
    << "exec " << shell_quote(job.keval) << " run --suite " << shell_quote(job.suite) << " --submissions "
    << shell_quote(job.submissions) << " --out " << shell_quote((job.out / "shards").string()) << "/\"$shard\""
    << " --shard \"$shard/" << job.shards << "\" --quiet";
  for (const auto& arg : job.run_args) s << " " << shell_quote(arg);
  s << "\n";
  return s.str();
}

std::string array_spec(const std::vector<int>& indexes, int max_parallel) {
  std::string spec;
  bool contiguous = !indexes.empty();
  for (size_t i = 1; i < indexes.size(); ++i) contiguous = contiguous && indexes[i] == indexes[i - 1] + 1;
  if (contiguous && indexes.size() > 1) {
    spec = std::to_string(indexes.front()) + "-" + std::to_string(indexes.back());
  } else {
    for (int i : indexes) {
      if (!spec.empty()) spec += ',';
      spec += std::to_string(i);
    }
  }
  if (max_parallel > 0) spec += "%" + std::to_string(max_parallel);
  return spec;
}

}  // namespace keval
