#pragma once

// How far apart keval's timing can read one kernel on its two sides, beyond what a case's
// samples show: the half-width of a 95% interval of an A/A ratio (the same code as candidate
// and as baseline), by the baseline's median time. Measured on the H200 with CUDA events
// (KernelBenchX a* to c*, 282 A/A cases; bench/runs/2026-12-03-session-20.md):
//   under 10 us  p95 |ratio - 1| 6.78%     10-50 us  5.11%
//   50-500 us    1.20%                     0.5 ms or more  1.07%
// (bitwise_and_binomial, whose calls wait for the GPU inside, left out: 31% and 1.9% off).
// A speedup's reported interval adds it to its bootstrap interval: with the bootstrap alone,
// 41% of those A/A cases had an interval without 1.00x; with both, 5%. The sampling loop
// also reads it (TimingSettings::spread_share): samples beyond what that spread allows
// narrow no interval.

#include <string>
#include <vector>

namespace keval {

// From a median of `from_ms` on (up to the next band's), the harness's spread is `spread`.
struct SpreadBand {
  double from_ms;
  double spread;
};

// CUDA events with a cold L2 (`cuda_event_cold_l2`), ascending by from_ms, the first from 0.
const std::vector<SpreadBand>& cuda_event_spread_bands();

// The relative half-width for a case timed with `timing_method` whose baseline's median took
// `baseline_ms`; 0 where it was not measured (wall-clock timing on the CPU).
double harness_spread(const std::string& timing_method, double baseline_ms);

}  // namespace keval
