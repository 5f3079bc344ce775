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
    mean = statistics.fmean(values)
    if mean <= 0:
        return math.inf
    return statistics.stdev(values) / mean
