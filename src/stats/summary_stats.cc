#include "stats/summary_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace keval {
namespace {

void require_usable(const std::vector<double>& values, const char* what) {
  if (values.empty()) {
    throw std::invalid_argument(std::string(what) + ": empty sample");
  }
  for (double v : values) {
    if (std::isnan(v)) throw std::invalid_argument(std::string(what) + ": NaN in sample");
  }
}

// Percentile on an already sorted, validated sample.
double sorted_percentile(const std::vector<double>& sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

double median(std::vector<double> values) {
  require_usable(values, "median");
  const std::size_t mid = values.size() / 2;
  // nth_element is linear; the bootstrap calls this thousands of times.
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2.0;
}

double percentile(std::vector<double> values, double p) {
  require_usable(values, "percentile");
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile: p must be in [0, 100], got " + std::to_string(p));
  }
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, p);
}

double iqr(std::vector<double> values) {
  require_usable(values, "iqr");
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, 75.0) - sorted_percentile(values, 25.0);
}

double mean(const std::vector<double>& values) {
  require_usable(values, "mean");
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace keval
