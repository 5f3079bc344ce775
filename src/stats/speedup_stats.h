#pragma once

// Aggregates over many submissions: geometric mean speedup, fast_p, pass@k.

#include <optional>
#include <vector>

namespace keval {

// Geometric mean; nullopt for no values (a summary with nothing measured).
// Throws std::invalid_argument on a value that is not positive (or NaN).
std::optional<double> geomean(const std::vector<double>& positive_values);

// KernelBench's fast_p: the fraction of ALL submissions that passed and are more
// than p times faster than the reference. One entry per submission, nullopt for
// one that did not pass. 0 for no submissions.
double fast_p(const std::vector<std::optional<double>>& speedups_of_passing_or_null, double p);

// fast_p as a summary reports it: nullopt ("not measured") when `passes` submissions passed
// but not one of them has a speedup (a run with --no-timing), since whether any was faster is
// unknown; fast_p otherwise (no pass at all: 0, whatever was timed).
std::optional<double> measured_fast_p(const std::vector<std::optional<double>>& speedups_of_passing_or_null,
                                       size_t passes, double p);

// Unbiased pass@k (Chen et al. 2021) from n samples of which c passed:
// 1 - C(n-c, k) / C(n, k), as a product so large n does not overflow.
// Throws std::invalid_argument unless 0 <= c <= n and 1 <= k <= n.
double pass_at_k(int n, int c, int k);

}  // namespace keval
