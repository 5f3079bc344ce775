#pragma once
// Submitting a sharded evaluation's array, and its unfinished shards again.
#include <string>
#include <vector>

#include "slurm/array_job.h"
#include "slurm/shard_status.h"
#include "slurm/slurm_client.h"

namespace keval {

// Writes the script, submits these shard indexes as one array and records the job id in
// OUT/slurm/array.json. Returns the job id.
std::string submit_shards(ArrayJob& job, SlurmClient& slurm, const std::vector<int>& indexes);

// The shards to submit again: neither done nor still in Slurm's queue.
std::vector<int> shards_to_resubmit(const std::vector<ShardStatus>& statuses);

}  // namespace keval
