#pragma once
// The GPU's measured ceilings (copy bandwidth, matmul throughput per dtype), measured once per
// GPU model and driver and cached, so efficiency compares against what this GPU reaches.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/runner/job_runner.h"

namespace keval {

struct Ceilings {
  double copy_gbps = 0;
  std::map<std::string, double> matmul_tflops;  // by dtype name; "float32" allows TF32
  nlohmann::json raw;                           // the runner's message, as stored

  // Roofline fraction: the time the case must take at the ceilings over the measured time.
  std::optional<double> efficiency(double bytes, double flops, const std::string& dtype,
                                   double time_ms) const;
  static Ceilings from_json(const nlohmann::json& j);
};

// The cache file for a GPU (name and driver in the file name).
std::filesystem::path ceilings_cache_path(const std::string& gpu_name, const std::string& driver);

// Cached ceilings, or a fresh measurement through `runner` (then cached). nullopt when the
// measurement failed; the run goes on without efficiency. Threads of one process measure one
// at a time, and a thread that waited reads the cache the first one wrote.
std::optional<Ceilings> load_or_measure_ceilings(JobRunner& runner, const std::string& gpu_name,
                                                 const std::string& driver,
                                                 const std::filesystem::path& work_dir);

}  // namespace keval
