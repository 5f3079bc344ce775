#include "engine/settings/run_options.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

namespace keval {

RunnerConfig runner_config(const RunOptions& options) {
  RunnerConfig config;
  config.python = choose_python(options.python);
  config.runner_dir = find_runner_dir();
  config.log_path = options.out / "logs" / "runner-0.log";
  config.fork_from_seed = !options.fresh_process_per_job;  // that mode pays a cold import per job
  // CPU threads per job: the machine's cores shared by the slots that run side by side
  // (oversubscribed BLAS threads made the interpreter's tl.dot several times slower; on a
  // GPU machine the cores speed up building large inputs).
  const int per_slot_guess = slots_per_gpu_guess(options);
  const std::string threads = std::to_string(
      std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(per_slot_guess)));
  config.extra_env = {{"OMP_NUM_THREADS", threads}, {"OPENBLAS_NUM_THREADS", threads},
                      {"MKL_NUM_THREADS", threads}};
  if (std::find(options.baselines.begin(), options.baselines.end(), "compile") != options.baselines.end()) {
    config.extra_env["KEVAL_PRELOAD_COMPILE"] = "1";  // the zygote imports torch.compile once
  }
  return config;
}

int slots_per_gpu(int jobs, const std::string& device, unsigned cores, size_t gpus, int64_t gpu_memory_bytes) {
  if (jobs > 0) return jobs;
  if (device != "cuda") return 2;
  int most = static_cast<int>(cores / 2 / std::max<size_t>(1, gpus));
  if (gpu_memory_bytes > 0) most = std::min<int64_t>(most, gpu_memory_bytes / kSlotGpuBytes);
  return std::clamp(most, 2, 8);
}

int slots_per_gpu_guess(const RunOptions& options) {
  return slots_per_gpu(options.jobs, options.device == "cpu" ? "cpu" : "cuda", std::thread::hardware_concurrency(), 1);
}

RunSettings run_settings(const RunOptions& options, const std::string& device) {
  RunSettings settings;
  settings.device = device;
  settings.seeds_per_case = options.seeds;
  settings.held_out_cases = options.held_out;
  settings.min_own_gpu_share = options.min_own_share;
  settings.seed_base = std::random_device{}();
  settings.timing = TimingSettings::for_device(settings.device);
  settings.timing.enabled = options.timing;
  if (options.timing_max_seconds > 0) settings.timing.max_seconds = options.timing_max_seconds;
  if (options.timing_max_samples > 0) {
    settings.timing.max_samples = options.timing_max_samples;
    settings.timing.min_samples = std::min(settings.timing.min_samples, options.timing_max_samples);
  }
  if (options.timing_min_samples > 0) {
    if (options.timing_max_samples > 0 && options.timing_min_samples > options.timing_max_samples) {
      throw std::invalid_argument("--min-samples " + std::to_string(options.timing_min_samples) +
                                  " is more than --max-samples " + std::to_string(options.timing_max_samples));
    }
    settings.timing.min_samples = options.timing_min_samples;
    settings.timing.max_samples = std::max(settings.timing.max_samples, options.timing_min_samples);
  }
  if (!options.baselines.empty()) settings.baselines = options.baselines;
  if (options.no_baselines) settings.baselines.clear();
  settings.time_largest_case_only = options.time_largest_case_only;
  settings.quick_correctness = options.quick_correctness;
  if (options.batch_variants) {
    // keval's own variants (variant_batch.h): no re-run, no profile, no ablation to pay for
    settings.check_determinism = false;
    settings.checks.profile_kernels = false;
    settings.own_variants = true;
  }
  settings.timeout = std::chrono::seconds(options.timeout_s > 0 ? options.timeout_s
                                          : settings.device == "cuda" ? 180 : 600);
  for (const auto& [task, seconds] : options.task_timeout_s) settings.task_timeouts[task] = std::chrono::seconds(seconds);
  return settings;
}

}  // namespace keval
