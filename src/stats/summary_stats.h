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

// The relative standard deviation has one definition, the runner's stopping rule's
// (runner/keval_runner/timing/sample_stats.py): the controller reads only the stop reason.

}  // namespace keval
