#include "engine/evaluation_limit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace keval {
namespace {

using namespace std::chrono_literals;

TEST(EvaluationLimit, UnlimitedUntilAnOutOfMemoryThenHalfOfThoseRunning) {
  EvaluationLimit limit;
  std::vector<std::unique_ptr<EvaluationPlace>> places;
  for (int i = 0; i < 8; ++i) places.push_back(std::make_unique<EvaluationPlace>(limit));  // never waits
  EXPECT_EQ(limit.limit(), 0);
  EXPECT_EQ(limit.shrink(), 4);
  EXPECT_EQ(limit.shrink(), 2);  // again: half of the limit, not of the 8 still running
  EXPECT_EQ(limit.out_of_memory(), 2);
  places.resize(1);
  EXPECT_EQ(limit.shrink(), 1);  // min(limit 2, running 1) / 2, at least one
  EXPECT_EQ(limit.shrink(), 1);
}

TEST(EvaluationLimit, ANewEvaluationWaitsWhileTheLimitIsReached) {
  EvaluationLimit limit;
  auto first = std::make_unique<EvaluationPlace>(limit);
  auto second = std::make_unique<EvaluationPlace>(limit);
  EXPECT_EQ(limit.shrink(), 1);
  std::atomic<bool> started{false};
  std::thread third([&] {
    EvaluationPlace place(limit);
    started = true;
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(started);  // two running, limit one
  first.reset();
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(started);  // one still running: the limit is reached
  second.reset();
  third.join();
  EXPECT_TRUE(started);
}

}  // namespace
}  // namespace keval
