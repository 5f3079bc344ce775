#pragma once

// Bootstrap confidence interval of a speedup (ratio of medians).

#include <cstdint>
#include <vector>

namespace keval {

struct Interval {
  double low = 0.0;
  double high = 0.0;
};

// Percentile-bootstrap CI of median(baseline_ms) / median(candidate_ms): each
// resample draws both sets with replacement, at their own sizes. Seeded
// std::mt19937_64 and our own index mapping (not std::uniform_int_distribution,
// whose output differs between standard libraries): same inputs, same interval.
// Throws std::invalid_argument on an empty set, a non-positive or NaN time,
// confidence outside (0, 1) or resamples < 1.
Interval bootstrap_ratio_ci(const std::vector<double>& baseline_ms,
                            const std::vector<double>& candidate_ms,
                            double confidence = 0.95, int resamples = 2000,
                            std::uint64_t seed = 1);

// Percentile-bootstrap CI of median(sample_ms), seeded as above. Same preconditions.
Interval bootstrap_median_ci(const std::vector<double>& sample_ms, double confidence = 0.95,
                             int resamples = 2000, std::uint64_t seed = 1);

// Percentile-bootstrap CI of the geometric mean of positive values (speedups of the passing
// submissions of one model), seeded as above. Same preconditions.
Interval bootstrap_geomean_ci(const std::vector<double>& positive_values, double confidence = 0.95,
                              int resamples = 2000, std::uint64_t seed = 1);

}  // namespace keval
