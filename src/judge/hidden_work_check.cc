#include "judge/hidden_work_check.h"

#include <algorithm>

#include "judge/reason_text.h"
#include "stats/summary_stats.h"

namespace keval {

std::optional<double> host_event_gap_ms(const TimingMessage& timing) {
  if (!timing.host_samples_ms) return std::nullopt;
  const auto& host = *timing.host_samples_ms;
  const std::size_t n = std::min(host.size(), timing.samples_ms.size());
  if (n == 0) return std::nullopt;
  std::vector<double> gaps;
  gaps.reserve(n);
  for (std::size_t i = 0; i < n; ++i) gaps.push_back(host[i] - timing.samples_ms[i]);
  return percentile(gaps, 25);
}

std::optional<std::string> hidden_work(const TimingMessage& candidate, const std::vector<const TimingMessage*>& controls,
                                       const JudgePolicy& policy) {
  const auto gap = host_event_gap_ms(candidate);
  if (!gap) return std::nullopt;
  std::vector<double> control_gaps;
  for (const TimingMessage* control : controls) {
    if (const auto control_gap = host_event_gap_ms(*control)) control_gaps.push_back(*control_gap);
  }
  // a control with no gap (or a negative one) says the machine adds none
  const double machine =
      control_gaps.empty() ? 0.0 : std::max(0.0, *std::min_element(control_gaps.begin(), control_gaps.end()));
  const double event = median(candidate.samples_ms);
  const double allowed = (policy.host_event_ratio - 1) * event + policy.host_event_slack_ms;
  if (*gap - machine <= allowed) return std::nullopt;
  std::string reason = "host time to a device-wide sync exceeds the CUDA event time (" + number(event) + " ms) by " +
                       number(*gap) + " ms in three samples of four";
  if (machine > 0) reason += " (the baselines timed beside it: " + number(machine) + " ms)";
  return reason + ": work runs outside the timed stream";
}

}  // namespace keval
