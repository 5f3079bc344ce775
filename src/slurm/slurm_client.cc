#include "slurm/slurm_client.h"

#include <sstream>
#include <stdexcept>

namespace keval {
namespace {

std::string first_line(std::string text) {
  const auto end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  return text;
}

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace

std::string SlurmClient::submit(const std::string& script, const std::string& array) {
  const CommandResult r = runner_.run({"sbatch", "--parsable", "--array=" + array, script});
  if (r.status == 127) throw std::runtime_error("cannot run sbatch: is Slurm's client on PATH? (" + last_line(r.err) + ")");
  const std::string id = first_line(r.out.substr(0, r.out.find(';')));
  if (r.status != 0 || id.empty()) {
    throw std::runtime_error("sbatch refused the array: " + last_line(r.err.empty() ? r.out : r.err));
  }
  return id;
}

std::map<int, std::string> SlurmClient::queued(const std::vector<std::string>& job_ids) {
  std::map<int, std::string> states;
  if (job_ids.empty()) return states;
  std::string jobs;
  for (const auto& id : job_ids) jobs += (jobs.empty() ? "" : ",") + id;
  const CommandResult r = runner_.run({"squeue", "--noheader", "--array", "--jobs=" + jobs, "--format=%i|%T"});
  if (r.status == 127) throw std::runtime_error("cannot run squeue: is Slurm's client on PATH? (" + last_line(r.err) + ")");
  // squeue exits non-zero for job ids it no longer knows (all finished): nothing is queued.
  if (r.status != 0) {
    if (r.err.find("Invalid job id") != std::string::npos) return states;
    throw std::runtime_error("squeue failed: " + last_line(r.err));
  }
  std::map<int, size_t> from_job;  // index -> position of its job in job_ids (later wins)
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    const auto underscore = line.find('_');
    if (bar == std::string::npos || underscore == std::string::npos || underscore > bar) continue;
    const std::string job = line.substr(0, underscore);
    const std::string task = line.substr(underscore + 1, bar - underscore - 1);
    if (task.empty() || task.find_first_not_of("0123456789") != std::string::npos) continue;
    size_t position = 0;
    for (size_t i = 0; i < job_ids.size(); ++i) {
      if (job_ids[i] == job) position = i;
    }
    const int index = std::stoi(task);
    if (auto it = from_job.find(index); it != from_job.end() && it->second > position) continue;
    from_job[index] = position;
    states[index] = line.substr(bar + 1);
  }
  return states;
}

}  // namespace keval
