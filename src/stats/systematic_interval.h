#pragma once

// A sampling interval of a ratio widened by a systematic error the samples cannot show.

#include "stats/bootstrap.h"

namespace keval {

// `sampled` (an interval around the positive `estimate`) with a systematic relative error of at
// most `relative_half_width` (0.05: the true ratio lies within 5% of the measured one at the same
// confidence) added in quadrature on a log scale, each side apart: an asymmetric interval stays
// asymmetric. The result holds `sampled` (a percentile bootstrap's interval can miss its own
// estimate: that side then widens by the systematic error alone). 0 returns `sampled` as it
// is. Throws std::invalid_argument on a non-positive or NaN estimate or bound, or a negative
// or NaN width.
Interval with_systematic_error(double estimate, Interval sampled, double relative_half_width);

}  // namespace keval
