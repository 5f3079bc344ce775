#include "stats/systematic_interval.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace keval {

Interval with_systematic_error(double estimate, Interval sampled, double relative_half_width) {
  if (!(estimate > 0) || !(sampled.low > 0) || !(sampled.high > 0)) {
    throw std::invalid_argument("with_systematic_error: estimate and bounds must be positive");
  }
  if (!(relative_half_width >= 0)) throw std::invalid_argument("with_systematic_error: negative width");
  if (relative_half_width == 0) return sampled;
  const double systematic = std::log1p(relative_half_width);
  const double below = std::hypot(std::max(0.0, std::log(estimate / sampled.low)), systematic);
  const double above = std::hypot(std::max(0.0, std::log(sampled.high / estimate)), systematic);
  return {std::min(sampled.low, estimate * std::exp(-below)), std::max(sampled.high, estimate * std::exp(above))};
}

}  // namespace keval
