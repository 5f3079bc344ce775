#include "engine/timing_gate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "engine/runner_process.h"

namespace keval {
namespace {

class TimingGateTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("keval_gate_" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(TimingGateTest, AloneOnlyBetweenAskingAndHandingBackAndReleasedAtTheEnd) {
  DeviceLease lease;
  {
    TimingGate gate(lease, dir);
    EXPECT_TRUE(lease.try_lock_shared());  // set-up: a correctness job may share the device
    lease.unlock_shared();
    gate.on_message({{"type", "device_alone"}});
    EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-0"));
    EXPECT_FALSE(lease.try_lock_shared());  // measuring: nobody else
    gate.on_message({{"type", "device_alone"}});  // asked twice: nothing more granted
    EXPECT_EQ(gate.granted(), 1);
    gate.on_message({{"type", "device_shared"}});
    EXPECT_TRUE(lease.try_lock_shared());
    lease.unlock_shared();
    gate.on_message({{"type", "device_alone"}});
    EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-1"));
  }  // the job ended while alone: released
  EXPECT_TRUE(lease.try_lock());
  lease.unlock();
}

TEST_F(TimingGateTest, WaitsForRunningCorrectnessJobsBeforeGrantingAndCountsTheWait) {
  DeviceLease lease;
  lease.lock_shared();  // a correctness job still running
  TimingGate gate(lease, dir);
  std::atomic<bool> granted{false};
  std::thread measuring([&] {
    gate.on_message({{"type", "device_alone"}});
    granted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(granted.load());
  EXPECT_FALSE(std::filesystem::exists(dir / "device-alone-0"));
  lease.unlock_shared();
  measuring.join();
  EXPECT_TRUE(granted.load());
  EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-0"));
  EXPECT_GE(gate.waited_s(), 0.04);
}

TEST_F(TimingGateTest, AFileItCannotCreateIsAHarnessError) {
  DeviceLease lease;
  TimingGate gate(lease, dir / "missing");
  EXPECT_THROW(gate.on_message({{"type", "device_alone"}}), HarnessError);
}

TEST_F(TimingGateTest, TimingJobsTakeTurnsSoNoOtherCanMeasureBetweenHandingBackAndSharing) {
  DeviceLease lease;
  std::atomic<bool> second_started{false};
  auto first = std::make_unique<TimingGate>(lease, dir);
  std::thread second([&] {
    TimingGate gate(lease, dir / "missing");  // waits for the first job's turn to end
    second_started = true;
  });
  first->on_message({{"type", "device_alone"}});
  first->on_message({{"type", "device_shared"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(second_started.load());
  EXPECT_FALSE(lease.try_lock());  // the first job still holds its share: nothing in between
  first.reset();
  second.join();
  EXPECT_TRUE(second_started.load());
}

}  // namespace
}  // namespace keval
