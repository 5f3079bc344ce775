#include "stats/speedup_stats.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace keval {

std::optional<double> geomean(const std::vector<double>& positive_values) {
  if (positive_values.empty()) return std::nullopt;
  // Sum of logs: a product of many speedups would overflow or underflow.
  double log_sum = 0.0;
  for (double v : positive_values) {
    if (!(v > 0.0)) {
      throw std::invalid_argument("geomean: value must be positive, got " + std::to_string(v));
    }
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(positive_values.size()));
}

double fast_p(const std::vector<std::optional<double>>& speedups_of_passing_or_null, double p) {
  if (speedups_of_passing_or_null.empty()) return 0.0;
  std::size_t fast = 0;
  for (const auto& speedup : speedups_of_passing_or_null) {
    if (speedup && *speedup > p) ++fast;
  }
  return static_cast<double>(fast) / static_cast<double>(speedups_of_passing_or_null.size());
}

std::optional<double> measured_fast_p(const std::vector<std::optional<double>>& speedups_of_passing_or_null,
                                       size_t passes, double p) {
  bool timed = false;
  for (const auto& speedup : speedups_of_passing_or_null) timed = timed || speedup.has_value();
  if (passes > 0 && !timed) return std::nullopt;
  return fast_p(speedups_of_passing_or_null, p);
}

double pass_at_k(int n, int c, int k) {
  if (n < 0 || c < 0 || c > n || k < 1 || k > n) {
    throw std::invalid_argument("pass_at_k: need 0 <= c <= n and 1 <= k <= n, got n=" +
                                std::to_string(n) + " c=" + std::to_string(c) +
                                " k=" + std::to_string(k));
  }
  // Fewer than k failures: every draw of k samples holds a pass.
  if (n - c < k) return 1.0;
  // C(n-c, k) / C(n, k) = prod_{i = n-c+1}^{n} (1 - k / i)
  double all_fail = 1.0;
  for (int i = n - c + 1; i <= n; ++i) all_fail *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - all_fail;
}

}  // namespace keval
