#include "stats/bootstrap.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "stats/summary_stats.h"

namespace keval {
namespace {

void require_positive_times(const std::vector<double>& times, const char* which) {
  if (times.empty()) {
    throw std::invalid_argument(std::string("bootstrap_ratio_ci: empty ") + which + " sample");
  }
  for (double t : times) {
    if (!(t > 0.0)) {
      throw std::invalid_argument(std::string("bootstrap_ratio_ci: ") + which +
                                  " time must be positive, got " + std::to_string(t));
    }
  }
}

// Multiply-shift maps a 64-bit draw onto [0, n); the bias (n / 2^64) is negligible.
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

double resampled_median(const std::vector<double>& sample, std::vector<double>& scratch,
                        std::mt19937_64& rng) {
  scratch.resize(sample.size());
  for (double& value : scratch) value = sample[draw_index(rng, sample.size())];
  return median(scratch);
}

void require_settings(double confidence, int resamples) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("bootstrap: confidence must be in (0, 1), got " + std::to_string(confidence));
  }
  if (resamples < 1) {
    throw std::invalid_argument("bootstrap: resamples must be >= 1, got " + std::to_string(resamples));
  }
}

}  // namespace

Interval bootstrap_ratio_ci(const std::vector<double>& baseline_ms,
                            const std::vector<double>& candidate_ms, double confidence,
                            int resamples, std::uint64_t seed) {
  require_positive_times(baseline_ms, "baseline");
  require_positive_times(candidate_ms, "candidate");
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("bootstrap_ratio_ci: confidence must be in (0, 1), got " +
                                std::to_string(confidence));
  }
  if (resamples < 1) {
    throw std::invalid_argument("bootstrap_ratio_ci: resamples must be >= 1, got " +
                                std::to_string(resamples));
  }
  std::mt19937_64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> scratch;
  for (int r = 0; r < resamples; ++r) {
    const double baseline = resampled_median(baseline_ms, scratch, rng);
    const double candidate = resampled_median(candidate_ms, scratch, rng);
    ratios.push_back(baseline / candidate);
  }
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  return Interval{percentile(ratios, tail), percentile(ratios, 100.0 - tail)};
}

Interval bootstrap_median_ci(const std::vector<double>& sample_ms, double confidence,
                             int resamples, std::uint64_t seed) {
  require_positive_times(sample_ms, "sample");
  require_settings(confidence, resamples);
  std::mt19937_64 rng(seed);
  std::vector<double> medians, scratch;
  medians.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) medians.push_back(resampled_median(sample_ms, scratch, rng));
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  return Interval{percentile(medians, tail), percentile(medians, 100.0 - tail)};
}

Interval bootstrap_geomean_ci(const std::vector<double>& positive_values, double confidence,
                              int resamples, std::uint64_t seed) {
  require_positive_times(positive_values, "value");
  require_settings(confidence, resamples);
  std::vector<double> logs;
  for (double v : positive_values) logs.push_back(std::log(v));
  std::mt19937_64 rng(seed);
  std::vector<double> geomeans;
  geomeans.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double sum = 0.0;
    for (std::size_t i = 0; i < logs.size(); ++i) sum += logs[draw_index(rng, logs.size())];
    geomeans.push_back(std::exp(sum / static_cast<double>(logs.size())));
  }
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  return Interval{percentile(geomeans, tail), percentile(geomeans, 100.0 - tail)};
}

}  // namespace keval
