#pragma once
// Where each shard of a Slurm array stands, from its output folder and Slurm's queue.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "slurm/array_job.h"

namespace keval {

struct ShardStatus {
  int index = 0;
  std::string state;  // done, pending, running (Slurm's state, lower case), or stopped
  size_t judged = 0;  // lines in its results.jsonl so far
};

// done: the shard's summary.json exists (its run got to the end). Otherwise Slurm's state
// while it is queued, else "stopped": it failed, was cancelled or never ran; resubmit it.
std::vector<ShardStatus> shard_statuses(const ArrayJob& job, const std::map<int, std::string>& queued);

nlohmann::json statuses_json(const std::vector<ShardStatus>& statuses);

}  // namespace keval
