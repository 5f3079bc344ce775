#pragma once

// Order statistics and spread of one sample set (timings in ms, usually).
// Every function throws std::invalid_argument on an empty sample or a NaN value:
// an empty timing set is a broken invariant upstream, never an expected outcome.

#include <vector>

namespace keval {

// Middle value; the mean of the two middle values for an even count.
double median(std::vector<double> values);

// Percentile p in [0, 100] with linear interpolation between closest ranks
// (numpy's default "linear" method): p = 0 is the minimum, p = 100 the maximum.
double percentile(std::vector<double> values, double p);

// Interquartile range: percentile 75 minus percentile 25.
double iqr(std::vector<double> values);

double mean(const std::vector<double>& values);

// Sample standard deviation (n - 1) over the mean. One value has no observed
// spread: 0. Throws when the mean is 0 (the ratio is undefined).
double relative_stdev(const std::vector<double>& values);

}  // namespace keval
