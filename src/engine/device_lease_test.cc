#include "engine/device_lease.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <shared_mutex>
#include <thread>

namespace keval {
namespace {

using namespace std::chrono_literals;

TEST(DeviceLease, CorrectnessJobsShareTheDevice) {
  DeviceLease lease;
  lease.lock_shared();
  std::atomic<bool> second{false};
  std::thread other([&] {
    lease.lock_shared();
    second = true;
    lease.unlock_shared();
  });
  other.join();  // would hang if sharing were exclusive
  EXPECT_TRUE(second);
  lease.unlock_shared();
}

TEST(DeviceLease, TimingWaitsForRunningJobsAndBlocksNewOnes) {
  DeviceLease lease;
  lease.lock_shared();  // a correctness job is running
  std::atomic<bool> timing_in{false}, late_job_in{false};
  std::thread timing([&] {
    lease.lock();
    timing_in = true;
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(late_job_in);  // nothing started beside the timed work
    lease.unlock();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timing_in);  // the running job still holds the device
  std::thread late_job([&] {
    lease.lock_shared();  // arrives while timing waits: must go after it
    late_job_in = true;
    EXPECT_TRUE(timing_in);
    lease.unlock_shared();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(late_job_in);
  lease.unlock_shared();  // the running job ends: timing goes, then the late job
  timing.join();
  late_job.join();
  EXPECT_TRUE(timing_in && late_job_in);
}

TEST(DeviceLease, TimingJobsTakeTurns) {
  DeviceLease lease;
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> jobs;
  for (int i = 0; i < 4; ++i) {
    jobs.emplace_back([&] {
      std::unique_lock<DeviceLease> alone(lease);
      most = std::max(most.load(), ++inside);
      std::this_thread::sleep_for(5ms);
      --inside;
    });
  }
  for (auto& job : jobs) job.join();
  EXPECT_EQ(most, 1);
}

}  // namespace
}  // namespace keval

namespace keval {
namespace {

TEST(DeviceLease, AShareUpgradesOnceTheOthersEndAndDowngradesInPlace) {
  DeviceLease lease;
  lease.lock_shared();  // the timing job's set-up
  lease.lock_shared();  // a correctness job beside it
  std::atomic<bool> alone{false};
  std::thread timing([&] {
    lease.upgrade();
    alone = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(alone.load());            // the correctness job still runs
  EXPECT_FALSE(lease.try_lock_shared());  // and no new one may start meanwhile
  lease.unlock_shared();                 // it ends
  timing.join();
  EXPECT_TRUE(alone.load());
  EXPECT_FALSE(lease.try_lock_shared());
  lease.downgrade();
  EXPECT_TRUE(lease.try_lock_shared());  // shared again: correctness jobs may start
  lease.unlock_shared();
  EXPECT_FALSE(lease.try_lock());         // the downgraded share is still held
  lease.unlock_shared();
  EXPECT_TRUE(lease.try_lock());
  lease.unlock();
}

TEST(DeviceLease, TheHoldFileExistsWhileATimingJobWaitsOrHasTheDeviceAlone) {
  const auto file = std::filesystem::temp_directory_path() / ("keval_hold_" + std::to_string(::getpid()));
  DeviceLease lease;
  lease.set_hold_file(file);
  lease.lock_shared();  // a running job
  std::thread timing([&] {
    lease.lock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(std::filesystem::exists(file));
    lease.unlock();
  });
  while (!std::filesystem::exists(file)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  lease.unlock_shared();  // the job pauses or ends
  timing.join();
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace keval
