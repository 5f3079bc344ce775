#include "engine/devices/evaluation_gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/wait_until_for_test.h"

namespace keval {
namespace {

using namespace std::chrono_literals;

TEST(EvaluationGate, UnlimitedUntilAnOutOfMemoryThenHalfOfThoseRunning) {
  EvaluationGate gate;
  std::vector<std::unique_ptr<EvaluationGateShare>> places;
  for (int i = 0; i < 8; ++i) places.push_back(std::make_unique<EvaluationGateShare>(gate));  // never waits
  EXPECT_EQ(gate.limit(), 0);
  EXPECT_EQ(gate.shrink(), 4);
  EXPECT_EQ(gate.shrink(), 2);  // again: half of the limit, not of the 8 still running
  EXPECT_EQ(gate.out_of_memory(), 2);
  places.resize(1);
  EXPECT_EQ(gate.shrink(), 1);  // min(limit 2, running 1) / 2, at least one
  EXPECT_EQ(gate.shrink(), 1);
}

// The retry shrinks the limit after every other evaluation ended: half of the four that ran when
// it asked to be alone, not of the one running then (four slots once fell to one).
TEST(EvaluationGate, ARetryAloneHalvesTheCrowdItLeftNotItself) {
  EvaluationGate gate;
  std::vector<std::unique_ptr<EvaluationGateShare>> others;
  for (int i = 0; i < 3; ++i) others.push_back(std::make_unique<EvaluationGateShare>(gate));
  int after = 0;
  std::thread retry([&] {
    EvaluationGateShare mine(gate);
    { EvaluationGateAlone turn(&gate); }
    after = gate.shrink();
  });
  // the others must end after it asked: wait for its ask, not for a while
  ASSERT_TRUE(wait_until([&] { return gate.state().waiting_alone == 1; })) << "the retry never asked";
  others.clear();
  retry.join();
  EXPECT_EQ(after, 2);
}

TEST(EvaluationGate, TheLimitGrowsBackAfterEvaluationsEndWithoutRunningOut) {
  EvaluationGate gate;
  std::vector<std::unique_ptr<EvaluationGateShare>> places;
  for (int i = 0; i < 4; ++i) places.push_back(std::make_unique<EvaluationGateShare>(gate));
  EXPECT_EQ(gate.shrink(), 2);
  places.clear();  // 4 ends
  auto run_one = [&] { EvaluationGateShare place(gate); };
  for (int i = 0; i < EvaluationGate::kEndsBeforeGrowing - 5; ++i) run_one();
  EXPECT_EQ(gate.limit(), 2);
  run_one();
  EXPECT_EQ(gate.limit(), 3);  // one more at once
  EXPECT_EQ(gate.shrink(), 1);  // ran out again: half of 3, and the count starts over
  for (int i = 0; i < EvaluationGate::kEndsBeforeGrowing - 1; ++i) run_one();
  EXPECT_EQ(gate.limit(), 1);
  run_one();
  EXPECT_EQ(gate.limit(), 2);
  for (int i = 0; i < EvaluationGate::kEndsBeforeGrowing; ++i) run_one();
  EXPECT_EQ(gate.limit(), 3);
  for (int i = 0; i < EvaluationGate::kEndsBeforeGrowing; ++i) run_one();
  EXPECT_EQ(gate.limit(), 0);  // back to the 4 that first ran at once: unlimited again
}

TEST(EvaluationGate, ANewEvaluationWaitsWhileTheLimitIsReached) {
  EvaluationGate gate;
  auto first = std::make_unique<EvaluationGateShare>(gate);
  auto second = std::make_unique<EvaluationGateShare>(gate);
  EXPECT_EQ(gate.shrink(), 1);
  std::atomic<bool> started{false};
  std::thread third([&] {
    EvaluationGateShare place(gate);
    started = true;
  });
  ASSERT_TRUE(wait_until([&] { return gate.state().waiting == 1; })) << "the third never arrived";
  EXPECT_FALSE(started);  // two running, limit one
  first.reset();
  std::this_thread::sleep_for(30ms);  // time for a wrong start to show
  EXPECT_FALSE(started);  // one still running: the limit is reached
  EXPECT_EQ(gate.state().waiting, 1);
  second.reset();
  third.join();
  EXPECT_TRUE(started);
}

TEST(EvaluationGate, AloneWaitsForEveryOtherEvaluationToEndAndHoldsNewOnesBack) {
  EvaluationGate gate;
  auto mine = std::make_unique<EvaluationGateShare>(gate);
  auto other = std::make_unique<EvaluationGateShare>(gate);
  std::atomic<bool> alone{false}, later_started{false};
  std::thread retry([&] {
    EvaluationGateAlone turn(&gate);
    alone = true;
    std::this_thread::sleep_for(30ms);  // time for a wrong start to show
    EXPECT_FALSE(later_started);  // none starts while it is alone
  });
  // a later evaluation may rightly start until the retry asks: wait for its ask
  ASSERT_TRUE(wait_until([&] { return gate.state().waiting_alone == 1; })) << "the retry never asked";
  EXPECT_FALSE(alone);  // the other evaluation still runs (a paused job keeps its memory)
  std::thread later([&] {
    EvaluationGateShare place(gate);
    later_started = true;
  });
  ASSERT_TRUE(wait_until([&] { return gate.state().waiting == 1; })) << "the later one never arrived";
  EXPECT_FALSE(later_started);  // held back while one waits to be alone
  other.reset();
  retry.join();
  EXPECT_TRUE(alone);
  later.join();
  EXPECT_TRUE(later_started);
}

TEST(EvaluationGate, TwoEvaluationsWaitingToBeAloneTakeTurns) {
  EvaluationGate gate;
  auto first = std::make_unique<EvaluationGateShare>(gate);
  auto second = std::make_unique<EvaluationGateShare>(gate);
  std::atomic<int> inside{0}, most{0}, turns{0};
  auto retry = [&](std::unique_ptr<EvaluationGateShare>& place) {
    {
      EvaluationGateAlone turn(&gate);
      most = std::max(most.load(), ++inside);
      std::this_thread::sleep_for(10ms);  // time for a second one inside to show
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
