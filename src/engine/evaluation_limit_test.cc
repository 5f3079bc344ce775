#include "engine/evaluation_limit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
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

// The retry shrinks the limit after every other evaluation ended: half of the four that ran when
// it asked to be alone, not of the one running then (four slots once fell to one).
TEST(EvaluationLimit, ARetryAloneHalvesTheCrowdItLeftNotItself) {
  EvaluationLimit limit;
  std::vector<std::unique_ptr<EvaluationPlace>> others;
  for (int i = 0; i < 3; ++i) others.push_back(std::make_unique<EvaluationPlace>(limit));
  int after = 0;
  std::thread retry([&] {
    EvaluationPlace mine(limit);
    { AloneOnGpu turn(&limit); }
    after = limit.shrink();
  });
  std::this_thread::sleep_for(30ms);
  others.clear();
  retry.join();
  EXPECT_EQ(after, 2);
}

TEST(EvaluationLimit, TheLimitGrowsBackAfterEvaluationsEndWithoutRunningOut) {
  EvaluationLimit limit;
  std::vector<std::unique_ptr<EvaluationPlace>> places;
  for (int i = 0; i < 4; ++i) places.push_back(std::make_unique<EvaluationPlace>(limit));
  EXPECT_EQ(limit.shrink(), 2);
  places.clear();  // 4 ends
  auto run_one = [&] { EvaluationPlace place(limit); };
  for (int i = 0; i < EvaluationLimit::kEndsBeforeGrowing - 5; ++i) run_one();
  EXPECT_EQ(limit.limit(), 2);
  run_one();
  EXPECT_EQ(limit.limit(), 3);  // one more at once
  EXPECT_EQ(limit.shrink(), 1);  // ran out again: half of 3, and the count starts over
  for (int i = 0; i < EvaluationLimit::kEndsBeforeGrowing - 1; ++i) run_one();
  EXPECT_EQ(limit.limit(), 1);
  run_one();
  EXPECT_EQ(limit.limit(), 2);
  for (int i = 0; i < EvaluationLimit::kEndsBeforeGrowing; ++i) run_one();
  EXPECT_EQ(limit.limit(), 3);
  for (int i = 0; i < EvaluationLimit::kEndsBeforeGrowing; ++i) run_one();
  EXPECT_EQ(limit.limit(), 0);  // back to the 4 that first ran at once: unlimited again
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

TEST(EvaluationLimit, AloneWaitsForEveryOtherEvaluationToEndAndHoldsNewOnesBack) {
  EvaluationLimit limit;
  auto mine = std::make_unique<EvaluationPlace>(limit);
  auto other = std::make_unique<EvaluationPlace>(limit);
  std::atomic<bool> alone{false}, later_started{false};
  std::thread retry([&] {
    AloneOnGpu turn(&limit);
    alone = true;
    std::this_thread::sleep_for(30ms);
    EXPECT_FALSE(later_started);  // none starts while it is alone
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(alone);  // the other evaluation still runs (a paused job keeps its memory)
  std::thread later([&] {
    EvaluationPlace place(limit);
    later_started = true;
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(later_started);  // held back while one waits to be alone
  other.reset();
  retry.join();
  EXPECT_TRUE(alone);
  later.join();
  EXPECT_TRUE(later_started);
}

TEST(EvaluationLimit, TwoEvaluationsWaitingToBeAloneTakeTurns) {
  EvaluationLimit limit;
  auto first = std::make_unique<EvaluationPlace>(limit);
  auto second = std::make_unique<EvaluationPlace>(limit);
  std::atomic<int> inside{0}, most{0}, turns{0};
  auto retry = [&](std::unique_ptr<EvaluationPlace>& place) {
    {
      AloneOnGpu turn(&limit);
      most = std::max(most.load(), ++inside);
      std::this_thread::sleep_for(10ms);
      --inside;
      ++turns;
    }
    place.reset();  // the rest of its evaluation, then it ends: the other's turn
  };
  std::thread a(retry, std::ref(first)), b(retry, std::ref(second));
  a.join();
  b.join();
  EXPECT_EQ(turns, 2);
  EXPECT_EQ(most, 1);
}

}  // namespace
}  // namespace keval
