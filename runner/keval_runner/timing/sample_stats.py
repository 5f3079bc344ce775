"""The runner's statistics of a sample set.

median: the middle value; for an even count the mean of the two middle values, as the
controller's (src/stats/summary_stats.h).
relative_stdev: the sample standard deviation (n - 1) over the mean, defined here only (the
stopping rule's; the controller reads the stop reason). With fewer than two samples the spread
is unknown (inf, so the stopping rule never takes one sample for converged), and a mean at or
below 0 gives inf (a timing is never at or below 0).
"""

import math
import statistics


def median(values) -> float:
    return statistics.median(values)


def relative_stdev(values) -> float:
    values = list(values)
    if len(values) < 2:
        return math.inf
    mean = math.fsum(values) / len(values)
    if mean <= 0:
        return math.inf
    # In floats (fsum, two passes), not statistics.stdev's exact fractions: the stopping rule
    # reads it after every sample, and at 100 samples those took 130 us, these 15.
    squares = math.fsum((value - mean) ** 2 for value in values)
    return math.sqrt(squares / (len(values) - 1)) / mean
