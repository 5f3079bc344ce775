#include "judge/harness_spread.h"

namespace keval {

double harness_spread(const std::string& timing_method, double baseline_ms) {
  if (timing_method != "cuda_event_cold_l2") return 0.0;
  if (baseline_ms < 0.01) return 0.07;
  if (baseline_ms < 0.05) return 0.05;
  if (baseline_ms < 0.5) return 0.0125;
  return 0.011;
}

}  // namespace keval
