#include "engine/devices/gpu_gates.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(GpuGatesTest, EveryUserOfAGpuGetsItsOneGatePairWithTheFirstHoldFile) {
  GpuGates gates;
  const GpuGates::Pair lane_a = gates.of(0, "/w/a/device-hold-0");
  const GpuGates::Pair lane_b = gates.of(0, "/w/b/device-hold-0");
  EXPECT_EQ(lane_a.device, lane_b.device);
  EXPECT_EQ(lane_a.evaluation, lane_b.evaluation);
  EXPECT_EQ(lane_b.device->hold_file(), "/w/a/device-hold-0");
  const GpuGates::Pair other_gpu = gates.of(1, "/w/b/device-hold-1");
  EXPECT_NE(other_gpu.device, lane_a.device);
  // A timing job of one lane has the device alone: the other lane's job cannot take a share.
  lane_a.device->lock();
  EXPECT_FALSE(lane_b.device->try_lock_shared());
  lane_a.device->unlock();
  EXPECT_TRUE(lane_b.device->try_lock_shared());
  lane_b.device->unlock_shared();
}

TEST(GpuGatesTest, AHoldFolderOutlivesTheRunsThatUseTheGates) {
  GpuGates gates("/w/serve-gates");
  EXPECT_EQ(gates.of(1, "/w/run-1/device-hold-1").device->hold_file(), "/w/serve-gates/device-hold-1");
}

}  // namespace
}  // namespace keval
