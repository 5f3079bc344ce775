#pragma once
// How one `keval run` evaluates: device, seeds, timing and deadlines.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct TimingSettings {
  bool enabled = true;
  int warmup = 3;
  int min_samples = 10;
  int max_samples = 100;
  double max_seconds = 0.25;  // per case, dtype and contender: bounds GPU time per candidate
  // Sampling stops as converged once the samples' stdev over their mean is at most this, after
  // min_samples and min_seconds, or this * sqrt(n / min_samples) after n samples
  // (docs/architecture.md: no time minimum per case and dtype).
  double target_rel_stdev = 0.005;
  double min_seconds = 0;
  // A CUDA sample taken while the SM clock ran under this fraction of its default is dropped.
  double low_clock_fraction = 0.75;
  // The spin kernel before each CUDA sample's start event, so the host's launch latency stays
  // out of the sample (runner/keval_runner/launch_cover.py); 0: none.
  double launch_cover_us = 200;

  nlohmann::json to_json() const {
    return {{"enabled", enabled}, {"warmup", warmup}, {"min_samples", min_samples},
            {"max_samples", max_samples}, {"max_seconds", max_seconds},
            {"target_rel_stdev", target_rel_stdev}, {"min_seconds", min_seconds},
            {"low_clock_fraction", low_clock_fraction}, {"launch_cover_us", launch_cover_us}};
  }
  // CPU interpreter timings are only indicative: no warm-up (nothing is compiled) and a few
  // samples, so a CPU run stays quick.
  static TimingSettings for_device(const std::string& device) {
    if (device == "cuda") return {};
    return {true, 0, 2, 3, 0.2};
  }
};

// Runtime anti-cheat checks of candidate jobs (the runner measures, the judge decides).
struct CheckSettings {
  int guard_bytes = 4096;
  bool poison_outputs = true;
  bool tamper = true;
  bool timed_output_check = true;
  bool profile_kernels = true;  // CUDA only: GPU time per kernel, for library_fallback

  nlohmann::json to_json(const std::string& device) const {
    return {{"guard_bytes", guard_bytes}, {"poison_outputs", poison_outputs}, {"tamper", tamper},
            {"timed_output_check", timed_output_check},
            {"profile_kernels", profile_kernels && device == "cuda"}};
  }
};

struct RunSettings {
  std::string device = "cpu";  // resolved: "cpu" (Triton interpreter) or "cuda"
  int gpu = 0;
  int seeds_per_case = 2;
  uint64_t seed_base = 0;  // fresh per run, so inputs cannot be predicted
  bool check_determinism = true;
  TimingSettings timing;
  CheckSettings checks;
  // What submissions are timed against, interleaved in the same timing job: "golden" (the
  // task's golden.py), "eager" (reference.py in PyTorch), "compile" (torch.compile of it).
  // The first is the speedup baseline.
  std::vector<std::string> baselines = {"golden"};
  // Time only each task's largest benchmark case in its first dtype (suite status reports:
  // torch.compile baselines recompile per shape and dtype, which would dominate the run).
  bool time_largest_case_only = false;
  // The sweep's timing-first mode: correctness on the small cases with one seed (a variant of a
  // golden differs only in tuning constants), then timing on the benchmark cases as usual.
  bool quick_correctness = false;
  // keval sweep's variants of keval's own goldens: trusted code (judge.h, check_hidden_work)
  bool own_variants = false;
  // library_fallback below this share of the call's GPU time in the submission's own kernels
  double min_own_gpu_share = 0.5;
  std::chrono::seconds timeout{300};

  nlohmann::json to_json() const {
    return {{"device", device}, {"gpu", gpu}, {"seeds_per_case", seeds_per_case},
            {"seed_base", seed_base}, {"check_determinism", check_determinism},
            {"timing", timing.to_json()}, {"checks", checks.to_json(device)}, {"baselines", baselines}, {"timeout_s", timeout.count()},
            {"quick_correctness", quick_correctness}};
  }
};

}  // namespace keval
