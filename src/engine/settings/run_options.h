#pragma once
// What a run was asked for (keval run, validate, sweep, golden record, serve's batches), and
// what that means for the runner processes and for how submissions are evaluated.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/runner/runner_process.h"
#include "engine/settings/run_settings.h"

namespace keval {

struct RunOptions {
  std::filesystem::path out;
  std::filesystem::path store_file;  // "" = out/keval.db (keval serve's lanes share one)
  bool out_locked = false;  // the caller holds out's OutLock (keval serve, for its whole life)
  std::string device = "auto";  // auto | cpu | cuda
  std::string tasks_glob;       // "" = all
  int jobs = 0;                 // worker slots per GPU (or on the CPU); 0 = slots_per_gpu's default
  std::vector<int> gpus;        // CUDA devices to use; empty = all the probe saw
  std::vector<std::string> baselines;  // empty = {"golden"}
  bool no_baselines = false;           // time the submissions alone (golden recording)
  bool time_largest_case_only = false; // suite status: one timed case per task
  bool fresh_process_per_job = false;  // benchmark mode: no warm workers
  std::string golden_from;             // a golden record to reuse ("" = $KEVAL_GOLDEN_DIR, if set)
  std::string python;           // "" = $KEVAL_PYTHON or python3
  int timeout_s = 0;            // per job; 0 = default for the device
  std::map<std::string, int> task_timeout_s;  // per job of a task, over timeout_s (keval mutate)
  int seeds = 2;
  int held_out = 2;             // held-out cases per task (RunSettings::held_out_cases)
  double timing_max_seconds = 0;  // per case, dtype and contender; 0 = the device's default
  double min_own_share = 0.5;   // library_fallback: the share of GPU time own kernels need
  bool timing = true;
  bool sandbox = true;
  bool sanitize = false;  // --sanitize: small cases again under compute-sanitizer memcheck
  bool progress = true;
  std::string submissions_label;  // what was evaluated, for the run record
  std::string suite_label = "keval";  // the suite's name in dataset records (docs/dataset.md)
  bool quick_correctness = false;  // sweep: correctness on the small cases, one seed, then timing
  int timing_max_samples = 0;      // 0 = the device's default
  int timing_min_samples = 0;      // 0 = the device's default; more raises the sample cap with it
  bool batch_variants = false;     // sweep: keval's own variants, a task's many in one job (variant_batch.h)
  std::string code_metrics = "off";  // CodeBLEU, maintainability: on | off | auto (generated submissions)
  std::string rerun;  // stored results judged again: "", "all", verdicts or task globs (RerunSelection)
};

// The first runner's configuration (its log is runner-0.log); the device is not known yet.
RunnerConfig runner_config(const RunOptions& options);

// Worker slots per GPU: --jobs, else on CUDA half the CPU cores shared among the GPUs, from 2
// to 8 (a timing job that waits for a core reads host times its kernels did not take, and
// the hidden-work check then sees work that is not there; 8 slots on the H200's 16 cores
// judged the demo and the hostile suite as expected), and at most one per kSlotGpuBytes of the
// GPU's memory when it is known (gpu_memory_bytes > 0); on the CPU 2.
int slots_per_gpu(int jobs, const std::string& device, unsigned cores, size_t gpus, int64_t gpu_memory_bytes = 0);
// GPU memory per default slot: KernelBenchX's largest calls hold about 12 GiB, and a job out of
// memory beside the others is run again alone, slowing the run (24 GiB GPUs get 2 slots).
inline constexpr int64_t kSlotGpuBytes = int64_t{12} << 30;
// The --jobs help of the commands that start slots.
inline constexpr const char* kJobsHelp =
    "worker slots per GPU, or on the CPU (default: on CUDA half the CPU cores per GPU, 2 to 8, "
    "at most one per 12 GiB of GPU memory; on the CPU 2)";
// Before the probe: "auto" taken for CUDA, one GPU, this machine's cores.
int slots_per_gpu_guess(const RunOptions& options);

// How submissions are evaluated on the resolved `device` ("cuda" or "cpu"), with a fresh seed.
RunSettings run_settings(const RunOptions& options, const std::string& device);

}  // namespace keval
