#include "slurm/shard_status.h"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace keval {

std::vector<ShardStatus> shard_statuses(const ArrayJob& job, const std::map<int, std::string>& queued) {
  std::vector<ShardStatus> statuses;
  for (int i = 0; i < job.shards; ++i) {
    ShardStatus s{i};
    const auto dir = job.shard_dir(i);
    std::ifstream results(dir / "results.jsonl");
    for (std::string line; std::getline(results, line);) s.judged += !line.empty();
    if (std::filesystem::exists(dir / "summary.json")) {
      s.state = "done";
    } else if (auto it = queued.find(i); it != queued.end()) {
      s.state = it->second;
      std::transform(s.state.begin(), s.state.end(), s.state.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    } else {
      s.state = "stopped";
    }
    statuses.push_back(s);
  }
  return statuses;
}

nlohmann::json statuses_json(const std::vector<ShardStatus>& statuses) {
  nlohmann::json shards = nlohmann::json::array();
  size_t done = 0;
  for (const auto& s : statuses) {
    shards.push_back({{"shard", s.index}, {"state", s.state}, {"judged", s.judged}});
    done += s.state == "done";
  }
  return {{"shards", shards}, {"done", done}, {"total", statuses.size()}};
}

}  // namespace keval
