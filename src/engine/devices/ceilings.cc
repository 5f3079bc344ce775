#include "engine/devices/ceilings.h"

#include <algorithm>
#include <fstream>
#include <mutex>

#include "common/cache_root.h"

namespace keval {

std::optional<double> Ceilings::efficiency(double bytes, double flops, const std::string& dtype,
                                           double time_ms) const {
  if (time_ms <= 0 || copy_gbps <= 0) return std::nullopt;
  double memory_floor_s = bytes / (copy_gbps * 1e9);
  double compute_floor_s = 0;
  auto found = matmul_tflops.find(dtype);
  if (found == matmul_tflops.end()) found = matmul_tflops.find("bfloat16");  // fp8/int8: no own figure yet
  if (found != matmul_tflops.end() && found->second > 0) compute_floor_s = flops / (found->second * 1e12);
  return std::max(memory_floor_s, compute_floor_s) / (time_ms / 1e3);
}

Ceilings Ceilings::from_json(const nlohmann::json& j) {
  Ceilings c;
  c.raw = j;
  c.copy_gbps = j.value("copy_gbps", 0.0);
  c.matmul_tflops = j.value("matmul_tflops", std::map<std::string, double>{});
  return c;
}

std::filesystem::path ceilings_cache_path(const std::string& gpu_name, const std::string& driver) {
  std::string key = gpu_name + "-" + driver;
  for (char& ch : key) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '_';
  }
  return keval_cache_root() / "ceilings" / (key + ".json");
}

namespace {

std::optional<Ceilings> cached_ceilings(const std::filesystem::path& cache) {
  std::ifstream in(cache);
  if (!in) return std::nullopt;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || j.value("copy_gbps", 0.0) <= 0) return std::nullopt;
  return Ceilings::from_json(j);
}

// keval serve's lanes start their first runs together: one measures, the others then read its
// cache, rather than each measuring beside the others' bandwidth.
std::mutex measuring;

}  // namespace

std::optional<Ceilings> load_or_measure_ceilings(JobRunner& runner, const std::string& gpu_name,
                                                 const std::string& driver,
                                                 const std::filesystem::path& work_dir) {
  const auto cache = ceilings_cache_path(gpu_name, driver);
  if (auto known = cached_ceilings(cache)) return known;
  std::lock_guard<std::mutex> lock(measuring);
  if (auto known = cached_ceilings(cache)) return known;
  std::filesystem::create_directories(work_dir);
  nlohmann::json request = {{"op", "run"}, {"kind", "ceilings"}, {"device", "cuda"},
                            {"work_dir", std::filesystem::absolute(work_dir).string()},
                            {"sandbox", {{"enabled", false}}}};
  JobOutcome outcome = runner.run(request, std::chrono::seconds(300));
  for (const nlohmann::json* measured : outcome.of_type("ceilings")) {
    if (!parse_as<CeilingsMessage>(*measured).message) continue;  // a field missing or mistyped
    std::filesystem::create_directories(cache.parent_path());
    std::ofstream(cache) << measured->dump(2) << "\n";
    return Ceilings::from_json(*measured);
  }
  return std::nullopt;
}

}  // namespace keval
