#include "engine/devices/device_gate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <shared_mutex>
#include <thread>

#include "common/wait_until_for_test.h"

namespace keval {
namespace {

using namespace std::chrono_literals;

// Whether a new share could start now; one that does is given back at once, so a wrong answer
// fails the test instead of leaving a share that a later wait never sees released.
bool a_share_may_start(DeviceGate& gate) {
  if (!gate.try_lock_shared()) return false;
  gate.unlock_shared();
  return true;
}

TEST(DeviceGate, CorrectnessJobsShareTheDevice) {
  DeviceGate gate;
  gate.lock_shared();
  std::atomic<bool> second{false};
  std::thread other([&] {
    gate.lock_shared();
    second = true;
    gate.unlock_shared();
  });
  other.join();  // would hang if sharing were exclusive
  EXPECT_TRUE(second);
  gate.unlock_shared();
}

TEST(DeviceGate, TimingWaitsForRunningJobsAndBlocksNewOnes) {
  DeviceGate gate;
  gate.lock_shared();  // a correctness job is running
  std::atomic<bool> timing_in{false}, late_job_in{false};
  std::thread timing([&] {
    gate.lock();
    timing_in = true;
    std::this_thread::sleep_for(20ms);  // time for a wrongly admitted late job to show
    EXPECT_FALSE(late_job_in);  // nothing started beside the timed work
    EXPECT_EQ(gate.state().sharing, 0);
    gate.unlock();
  });
  ASSERT_TRUE(wait_until([&] { return gate.state().timing_waiting == 1; })) << "the timing job never asked";
  EXPECT_FALSE(timing_in);  // the running job still holds the device
  std::thread late_job([&] {
    gate.lock_shared();  // arrives while timing waits: must go after it
    late_job_in = true;
    EXPECT_TRUE(timing_in);
    gate.unlock_shared();
  });
  ASSERT_TRUE(wait_until([&] { return gate.state().shares_waiting == 1; })) << "the late job never arrived";
  EXPECT_FALSE(late_job_in);
  gate.unlock_shared();  // the running job ends: timing goes, then the late job
  timing.join();
  late_job.join();
  EXPECT_TRUE(timing_in && late_job_in);
}

TEST(DeviceGate, TimingJobsTakeTurns) {
  DeviceGate gate;
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> jobs;
  for (int i = 0; i < 4; ++i) {
    jobs.emplace_back([&] {
      std::unique_lock<DeviceGate> alone(gate);
      most = std::max(most.load(), ++inside);
      std::this_thread::sleep_for(5ms);  // time for a second one inside to show
      --inside;
    });
  }
  for (auto& job : jobs) job.join();
  EXPECT_EQ(most, 1);
}

TEST(DeviceGate, AShareUpgradesOnceTheOthersEndAndDowngradesInPlace) {
  DeviceGate gate;
  gate.lock_shared();  // the timing job's set-up
  gate.lock_shared();  // a correctness job beside it
  std::atomic<bool> alone{false};
  std::thread timing([&] {
    gate.upgrade();
    alone = true;
  });
  // Until the upgrade has begun a new share may rightly start: wait for it, not for a while.
  ASSERT_TRUE(wait_until([&] { return gate.state().timing_waiting == 1; })) << "the upgrade never began";
  EXPECT_FALSE(alone.load());            // the correctness job still runs
  EXPECT_FALSE(a_share_may_start(gate));  // and no new one may start meanwhile
  gate.unlock_shared();                  // it ends
  timing.join();
  EXPECT_TRUE(alone.load());
  EXPECT_FALSE(a_share_may_start(gate));
  gate.downgrade();
  EXPECT_TRUE(a_share_may_start(gate));  // shared again: correctness jobs may start
  EXPECT_FALSE(gate.try_lock());          // the downgraded share is still held
  gate.unlock_shared();
  EXPECT_TRUE(gate.try_lock());
  gate.unlock();
}

TEST(DeviceGate, TheHoldFileExistsWhileATimingJobWaitsOrHasTheDeviceAlone) {
  const auto file = std::filesystem::temp_directory_path() / ("keval_hold_" + std::to_string(::getpid()));
  DeviceGate gate;
  gate.set_hold_file(file);
  gate.lock_shared();  // a running job
  std::thread timing([&] {
    gate.lock();
    EXPECT_TRUE(std::filesystem::exists(file));
    gate.unlock();
  });
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(file); })) << "no hold file while timing waits";
  gate.unlock_shared();  // the job pauses or ends
  timing.join();
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace keval
