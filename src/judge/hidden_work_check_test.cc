#include "judge/hidden_work_check.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TimingMessage sampled(std::string who, std::vector<double> event, std::vector<double> host) {
  TimingMessage t;
  t.who = std::move(who);
  t.method = "cuda_event_cold_l2";
  t.samples_ms = std::move(event);
  t.host_samples_ms = std::move(host);
  return t;
}

TEST(HiddenWorkCheck, GapIsTheLowerQuartileOfPairedDifferences) {
  auto t = sampled("candidate", {1.0, 1.0, 1.0, 1.0, 1.0}, {1.1, 1.2, 1.3, 3.0, 5.0});
  EXPECT_NEAR(*host_event_gap_ms(t), 0.2, 1e-9);
  t.host_samples_ms.reset();
  EXPECT_FALSE(host_event_gap_ms(t));
}

TEST(HiddenWorkCheck, WorkInEveryCallIsFound) {
  auto side_stream = sampled("candidate", {0.26, 0.26, 0.26, 0.26}, {1.3, 1.31, 1.29, 1.3});
  auto why = hidden_work(side_stream, {}, JudgePolicy{});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("work runs outside the timed stream"), std::string::npos) << *why;
}

TEST(HiddenWorkCheck, ACpuThatDelaysSomeSamplesIsNotHiddenWork) {
  // 6 of 10 samples waited for a core: their median host time is 3x the event time.
  auto busy = sampled("candidate", std::vector<double>(10, 0.26),
                      {0.9, 0.3, 0.9, 0.3, 0.9, 0.3, 0.9, 0.3, 0.9, 0.9});
  EXPECT_FALSE(hidden_work(busy, {}, JudgePolicy{}));
}

TEST(HiddenWorkCheck, AGapTheBaselinesShareIsTheMachines) {
  // Every sample of both sides 0.28 ms over its events (a GPU shared with other slots).
  auto candidate = sampled("candidate", std::vector<double>(8, 0.259), std::vector<double>(8, 0.539));
  auto golden = sampled("golden", std::vector<double>(8, 0.262), std::vector<double>(8, 0.532));
  auto eager = sampled("eager", std::vector<double>(8, 0.30), std::vector<double>(8, 0.61));
  EXPECT_TRUE(hidden_work(candidate, {}, JudgePolicy{}));
  EXPECT_FALSE(hidden_work(candidate, {&golden, &eager}, JudgePolicy{}));
  // The smallest baseline gap counts, so a slow-launching baseline cannot cover hidden work.
  auto quiet = sampled("golden", std::vector<double>(8, 0.262), std::vector<double>(8, 0.27));
  auto why = hidden_work(candidate, {&quiet, &eager}, JudgePolicy{});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("baselines timed beside it"), std::string::npos) << *why;
}

TEST(HiddenWorkCheck, ANegativeBaselineGapTakesNothingOff) {
  auto candidate = sampled("candidate", std::vector<double>(4, 0.1), std::vector<double>(4, 0.5));
  auto odd = sampled("golden", std::vector<double>(4, 0.3), std::vector<double>(4, 0.2));
  EXPECT_TRUE(hidden_work(candidate, {&odd}, JudgePolicy{}));
}

}  // namespace
}  // namespace keval
