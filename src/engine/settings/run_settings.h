#pragma once
// How one `keval run` evaluates: device, seeds, timing and deadlines.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/harness_spread.h"

namespace keval {

struct TimingSettings {
  bool enabled = true;
  int warmup = 3;
  int min_samples = 10;
  int max_samples = 100;
  double max_seconds = 0.25;  // per case, dtype and contender: bounds GPU time per candidate
  // Sampling stops as converged once the samples' stdev over their mean is at most this, after
  // min_samples and min_seconds, or this * sqrt(n / min_samples) after n samples
  // (docs/decisions/0019-stopping-rule.md: no time minimum per case and dtype).
  double target_rel_stdev = 0.005;
  double min_seconds = 0;
  // A CUDA sample taken while the SM clock ran under this fraction of its default is dropped.
  double low_clock_fraction = 0.75;
  // The spin kernel before each CUDA sample's start event, so the host's launch latency stays
  // out of the sample (runner/keval_runner/timing/launch_cover.py); 0: none.
  double launch_cover_us = 200;
  // Sampling also stops as converged once the median's standard error is at most this share of
  // the harness's own spread at the contender's median time (judge/harness_spread.h): a
  // speedup's interval adds that spread, so more samples would narrow it by at most
  // sqrt(1 + share^2) - 1 (1.1% at 0.15). On the H200 kernels of a few us ran to the time cap
  // (80 samples a side) for a standard error under 0.2% beside a 5-7% spread. At 0.15 only
  // the bands under 50 us move: above, the target_rel_stdev rule is the stricter. 0: off.
  double spread_share = 0.15;
  // Who clocks a CUDA sample: "warden" (its events around a gate it opens, so no figure of a
  // sample is the submission's word: runner/keval_runner/warden/warden_gpu_clock.py,
  // docs/trust.md) or "guest" (the timed process's own events, which forged 100x speedups on an
  // H100: bench/runs/2026-12-05-session-33.md). KEVAL_CUDA_CLOCK in the runner's environment wins.
  std::string cuda_clock = "warden";
  // With the warden's CUDA clock: a timed call still running this long after its gate opened
  // leaves its process judged stuck.
  double done_wait_s = 120;
  // A timed call's outputs are checked within this many times the case's tolerance (the
  // correctness calls apply the tolerance itself; an output made for other inputs is far
  // outside it), and the warden reads (CPU) an output spanning at most this many times its
  // element count of storage.
  double timed_output_tolerance_factor = 8;
  double timed_output_span_factor = 2;
  // Calls per timed sample with the warden's clock: each sample holds this many calls on fresh
  // sets of their own, back to back behind one gate opening, and is their time over the count,
  // so the opening's own jitter (context switches, host latency) is shared by them. At most
  // timed_calls_max, and as many as fit timed_calls_bytes beside the first set
  // (runner/keval_runner/warden/timed_calls.py). The CPU's round trip is a small share of an
  // interpreted call: one call a sample there.
  int timed_calls_max = 8;
  double timed_calls_bytes = 1 << 30;

  nlohmann::json to_json() const {
    nlohmann::json bands = nlohmann::json::array();
    for (const SpreadBand& band : cuda_event_spread_bands()) bands.push_back({band.from_ms, band.spread});
    return {{"enabled", enabled}, {"warmup", warmup}, {"min_samples", min_samples},
            {"max_samples", max_samples}, {"max_seconds", max_seconds},
            {"target_rel_stdev", target_rel_stdev}, {"min_seconds", min_seconds},
            {"low_clock_fraction", low_clock_fraction}, {"launch_cover_us", launch_cover_us},
            {"spread_share", spread_share}, {"spread_bands", spread_share > 0 ? bands : nlohmann::json::array()},
            {"cuda_clock", cuda_clock}, {"done_wait_s", done_wait_s},
            {"timed_output_tolerance_factor", timed_output_tolerance_factor},
            {"timed_output_span_factor", timed_output_span_factor},
            {"timed_calls_max", timed_calls_max}, {"timed_calls_bytes", timed_calls_bytes}};
  }
  // CPU interpreter timings are only indicative: no warm-up (nothing is compiled) and a few
  // samples, so a CPU run stays quick; wall-clock timing has no measured spread.
  static TimingSettings for_device(const std::string& device) {
    if (device == "cuda") return {};
    TimingSettings cpu{true, 0, 2, 3, 0.2};
    cpu.spread_share = 0;
    cpu.timed_calls_max = 1;
    return cpu;
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
  // Cases drawn per task from its `[held_out]` ranges with seed_base (suite/held_out.h):
  // shapes no instruction names, judged for correctness only.
  int held_out_cases = 2;
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
  // A task's own job timeout, over `timeout` (keval mutate: its mutants', from its golden's time)
  std::map<std::string, std::chrono::seconds> task_timeouts;

  std::chrono::seconds timeout_for(const std::string& task) const {
    const auto found = task_timeouts.find(task);
    return found == task_timeouts.end() ? timeout : found->second;
  }

  nlohmann::json to_json() const {
    nlohmann::json out = {{"device", device}, {"gpu", gpu}, {"seeds_per_case", seeds_per_case},
            {"seed_base", seed_base}, {"held_out_cases", held_out_cases}, {"check_determinism", check_determinism},
            {"timing", timing.to_json()}, {"checks", checks.to_json(device)}, {"baselines", baselines}, {"timeout_s", timeout.count()},
            {"quick_correctness", quick_correctness}};
    for (const auto& [task, seconds] : task_timeouts) out["task_timeout_s"][task] = seconds.count();
    return out;
  }
};

}  // namespace keval
