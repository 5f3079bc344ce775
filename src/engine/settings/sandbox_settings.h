#pragma once
// What confines a job's child process (uid, network, rlimits, output caps), decided by the
// controller and sent with every request; the runner applies it right after fork.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/machine_paths.h"

namespace keval {

struct SandboxSettings {
  bool enabled = true;
  std::optional<int> uid_base;  // root only: jobs switch uid (each slot its own, see slot_uids)
  std::vector<int> slot_uids;   // slot i runs as slot_uids[i]; leased for the run (UidLease)
  bool isolate_network = true;
  std::optional<long long> cpu_seconds;
  std::optional<long long> file_size_bytes;
  std::optional<long long> open_files = 4096;
  std::optional<long long> processes = 1024;
  std::optional<long long> address_space_bytes;  // CPU mode only: CUDA reserves huge address ranges
  long long stdout_cap_bytes = 1 << 20;
  std::vector<std::string> warnings;  // what could not be applied, recorded with the run

  // The uid slot `slot` runs as (none when jobs keep the controller's uid).
  std::optional<int> uid_of_slot(int slot) const;
  // The request's "sandbox" object for worker slot `slot`; its Triton and Inductor (torch.compile)
  // caches lie below `cache_root`, one folder per uid (see cache_dir_of).
  nlohmann::json for_slot(int slot, const std::string& cache_root) const;
  // For the run record (summary.json, keval.db): the warnings name the machine's folders as
  // reasons do (`paths`, engine/settings/run_paths.h), so the record can be shared.
  nlohmann::json describe(const MachinePaths& paths) const;
};

// A compile cache (`kind`: "triton" or "inductor") for jobs running as `uid` (or, unsandboxed,
// as this process's user): one folder per uid, never per slot, because a job hands the folder
// to its uid, and two runs at once lease different uids for the same slot number.
std::string cache_dir_of(const std::string& root, const std::string& kind, std::optional<int> uid);

// Defaults for a device mode and job timeout, reduced to what this machine allows:
// a uid switch needs root and a Python installation other users can read.
SandboxSettings decide_sandbox(bool enabled, const std::string& device, int timeout_s,
                               const std::vector<std::string>& python_dirs);

// sys.prefix and sys.base_prefix of an interpreter (empty on failure).
std::vector<std::string> python_install_dirs(const std::string& python);

// Applies what the runner's probe found it can do (network namespaces, CUDA as another uid).
void apply_probe_capabilities(SandboxSettings& settings, const nlohmann::json& probe,
                              const std::string& device);

// True when every ancestor folder of `path` can be traversed by other users.
bool readable_by_others(const std::string& path);

}  // namespace keval
