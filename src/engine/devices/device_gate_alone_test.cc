#include "engine/devices/device_gate_alone.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "common/wait_until_for_test.h"
#include "engine/runner/runner_process.h"

namespace keval {
namespace {

class DeviceGateAloneTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("keval_gate_" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(DeviceGateAloneTest, AloneOnlyBetweenAskingAndHandingBackAndReleasedAtTheEnd) {
  DeviceGate device;
  {
    DeviceGateAlone gate(device, dir);
    EXPECT_TRUE(device.try_lock_shared());  // set-up: a correctness job may share the device
    device.unlock_shared();
    gate.on_message({{"type", "device_alone"}});
    EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-0"));
    EXPECT_FALSE(device.try_lock_shared());  // measuring: nobody else
    gate.on_message({{"type", "device_alone"}});  // asked twice: nothing more granted
    EXPECT_EQ(gate.granted(), 1);
    gate.on_message({{"type", "device_shared"}});
    EXPECT_TRUE(device.try_lock_shared());
    device.unlock_shared();
    gate.on_message({{"type", "device_alone"}});
    EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-1"));
  }  // the job ended while alone: released
  EXPECT_TRUE(device.try_lock());
  device.unlock();
}

TEST_F(DeviceGateAloneTest, WaitsForRunningCorrectnessJobsBeforeGrantingAndCountsTheWait) {
  DeviceGate device;
  device.lock_shared();  // a correctness job still running
  DeviceGateAlone gate(device, dir);
  std::atomic<bool> granted{false};
  std::thread measuring([&] {
    gate.on_message({{"type", "device_alone"}});
    granted = true;
  });
  ASSERT_TRUE(wait_until([&] { return device.state().timing_waiting == 1; })) << "it never asked";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a wait it must count, once it waits
  EXPECT_FALSE(granted.load());
  EXPECT_FALSE(std::filesystem::exists(dir / "device-alone-0"));
  device.unlock_shared();
  measuring.join();
  EXPECT_TRUE(granted.load());
  EXPECT_TRUE(std::filesystem::exists(dir / "device-alone-0"));
  EXPECT_GE(gate.waited_s(), 0.05);
}

TEST_F(DeviceGateAloneTest, AFileItCannotCreateIsAHarnessError) {
  DeviceGate device;
  DeviceGateAlone gate(device, dir / "missing");
  EXPECT_THROW(gate.on_message({{"type", "device_alone"}}), HarnessError);
}

TEST_F(DeviceGateAloneTest, TwoTimingJobsAskingAtOnceMeasureOneAfterTheOther) {
  DeviceGate device;
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  DeviceGateAlone first(device, dir / "a"), second(device, dir / "b");  // both set up beside each other
  std::atomic<int> alone{0}, most{0};
  auto measure = [&](DeviceGateAlone& gate) {
    gate.on_message({{"type", "device_alone"}});  // parked while it waits: no deadlock
    most = std::max(most.load(), ++alone);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // time for a second one to show
    --alone;
    gate.on_message({{"type", "device_shared"}});
    gate.on_message({{"type", "device_paused"}});  // then pauses: the other may measure
  };
  std::thread a([&] { measure(first); }), b([&] { measure(second); });
  a.join();
  b.join();
  EXPECT_EQ(most.load(), 1);
  EXPECT_TRUE(std::filesystem::exists(dir / "a" / "device-alone-0"));
  EXPECT_TRUE(std::filesystem::exists(dir / "b" / "device-alone-0"));
}

TEST_F(DeviceGateAloneTest, APausedCorrectnessJobLetsATimingJobMeasureAndResumesAfterIt) {
  DeviceGate device;
  device.set_hold_file(dir / "hold");
  std::filesystem::create_directories(dir / "job");
  auto correctness = std::make_unique<DeviceGateShare>(device, dir / "job");
  DeviceGateAlone timing(device, dir);
  std::atomic<bool> measuring{false}, resumed{false};
  std::thread timer([&] {
    timing.on_message({{"type", "device_alone"}});
    measuring = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // time for a wrong resume to show
    EXPECT_FALSE(resumed.load());  // the paused job stays paused while timing measures
    timing.on_message({{"type", "device_shared"}});
  });
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(dir / "hold"); })) << "no hold file";
  EXPECT_FALSE(measuring.load());  // the correctness job still holds its share
  std::thread job([&] {
    correctness->on_message({{"type", "device_paused"}});  // its pause point
    resumed = true;
  });
  timer.join();
  job.join();
  EXPECT_TRUE(measuring.load() && resumed.load());
  EXPECT_TRUE(std::filesystem::exists(dir / "job" / "device-resume-0"));
  EXPECT_EQ(correctness->pauses(), 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "hold"));  // nobody waits or measures now
  correctness.reset();
}

TEST_F(DeviceGateAloneTest, AnIdleStretchGivesTheShareBackAtOnceAndBusyTakesOneAgain) {
  DeviceGate device;
  {
    DeviceGateShare gate(device, dir);
    EXPECT_FALSE(device.try_lock());
    gate.on_message({{"type", "device_idle"}});  // compiling: the device is free for a timing job
    ASSERT_TRUE(device.try_lock());
    std::atomic<bool> busy{false};
    std::thread job([&] {
      gate.on_message({{"type", "device_busy"}});  // waits while a timing job has the device
      busy = true;
    });
    ASSERT_TRUE(wait_until([&] { return device.state().shares_waiting == 1; })) << "busy never waited";
    EXPECT_FALSE(busy.load());
    EXPECT_FALSE(std::filesystem::exists(dir / "device-busy-0"));
    device.unlock();
    job.join();
    EXPECT_TRUE(std::filesystem::exists(dir / "device-busy-0"));
    EXPECT_FALSE(device.try_lock());  // the job's share again
  }
  EXPECT_TRUE(device.try_lock());  // released with the gate
  device.unlock();
}

TEST_F(DeviceGateAloneTest, MessagesOutOfOrderNeverUnbalanceTheGate) {
  DeviceGate device;
  {
    DeviceGateAlone timing(device, dir);
    timing.on_message({{"type", "device_busy"}});  // busy without idle: still one share
    timing.on_message({{"type", "device_idle"}});
    timing.on_message({{"type", "device_idle"}});  // twice: given back once
    timing.on_message({{"type", "device_alone"}});  // from idle: a share first, then alone
    EXPECT_FALSE(device.try_lock_shared());
    timing.on_message({{"type", "device_shared"}});
    timing.on_message({{"type", "device_paused"}});
    EXPECT_TRUE(std::filesystem::exists(dir / "device-resume-0"));
  }
  EXPECT_TRUE(device.try_lock());
  device.unlock();
  EXPECT_TRUE(device.try_lock_shared());
  device.unlock_shared();
}

}  // namespace
}  // namespace keval
