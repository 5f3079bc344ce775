#include "judge/harness_spread.h"

namespace keval {

const std::vector<SpreadBand>& cuda_event_spread_bands() {
  static const std::vector<SpreadBand> bands = {
      {0.0, 0.07}, {0.01, 0.05}, {0.05, 0.0125}, {0.5, 0.011}};
  return bands;
}

double harness_spread(const std::string& timing_method, double baseline_ms) {
  if (timing_method != "cuda_event_cold_l2") return 0.0;
  const auto& bands = cuda_event_spread_bands();
  double spread = bands.front().spread;
  for (const SpreadBand& band : bands) {
    if (baseline_ms >= band.from_ms) spread = band.spread;
  }
  return spread;
}

}  // namespace keval
