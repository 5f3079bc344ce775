#include "engine/devices/device_memory.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(DeviceMemoryTest, AnOutOfMemoryTheWardenSawIsRetried) {
  JobOutcome job;
  job.done = true;
  job.messages.push_back({{"type", "error"}, {"stage", "inputs"}, {"error_kind", "OutOfMemoryError"},
                          {"message", "CUDA out of memory. Tried to allocate 6.00 GiB"}, {"out_of_memory", true}});
  EXPECT_TRUE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, TheWardensOwnAllocationFailingIsRetried) {
  JobOutcome job;
  job.exit_code = 3;
  job.messages.push_back({{"type", "error"}, {"stage", "runner"}, {"error_kind", "OutOfMemoryError"},
                          {"message", "Traceback ... guard bands ... CUDA out of memory."}, {"out_of_memory", true}});
  EXPECT_TRUE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, AGuestOutOfMemoryOnADeviceTheWardenSawCrowdedIsRetried) {
  for (double share : {0.05, 0.6}) {
    JobOutcome job;
    job.done = true;
    job.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "OutOfMemoryError"},
                            {"message", "CUDA out of memory."}, {"device_free_share", share}});
    EXPECT_EQ(ran_out_of_device_memory(job), share < kCrowdedFreeShare) << share;
  }
  JobOutcome other;  // a free share beside another failure decides nothing
  other.done = true;
  other.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "RuntimeError"},
                            {"message", "x"}, {"device_free_share", 0.01}});
  EXPECT_FALSE(ran_out_of_device_memory(other));
}

TEST(DeviceMemoryTest, GuestsOwnOutOfMemoryTextIsNotRetried) {
  // what a submission raising torch.OutOfMemoryError itself leaves: its call's error, which the
  // warden forwards without out_of_memory
  JobOutcome job;
  job.done = true;
  job.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "OutOfMemoryError"},
                          {"error_class", "OutOfMemoryError"},
                          {"message", "CUDA out of memory. Tried to allocate 6.00 GiB"}});
  EXPECT_FALSE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, OutOfMemoryTextOnTheSubmissionsStderrIsNotRetried) {
  JobOutcome job;
  job.exit_code = 3;  // the guest exits 3 and the warden mirrors it
  job.stderr_tail = "keval_runner: no guard bands for full/515486587: OutOfMemoryError('CUDA out of memory.')";
  EXPECT_FALSE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, ADeviceErrorNamingOutOfMemoryWithoutTheWardensFieldIsNotRetried) {
  for (const char* message : {"AcceleratorError: CUDA error: out of memory\nSearch for `cudaErrorMemoryAllocation'",
                              "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"}) {
    JobOutcome job;
    job.exit_code = 4;
    job.messages.push_back({{"type", "error"}, {"stage", "device"}, {"error_kind", "DeviceLost"},
                            {"message", message}});
    EXPECT_FALSE(ran_out_of_device_memory(job)) << message;
  }
}

TEST(DeviceMemoryTest, AContextTheGuestCouldNotMakeBeforeReadyIsRetried) {
  // before `ready` only keval's code runs in the guest: the warden reports it with the field
  JobOutcome job;
  job.exit_code = 4;
  job.messages.push_back({{"type", "error"}, {"stage", "device"}, {"error_kind", "AcceleratorError"},
                          {"message", "CUDA error: out of memory"}, {"out_of_memory", true}});
  EXPECT_TRUE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, OtherFailuresDoNot) {
  JobOutcome job;
  job.done = true;
  job.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "RuntimeError"},
                          {"message", "shape mismatch"}});
  job.stderr_tail = "a submission printing OutOfMemoryError after finishing";
  EXPECT_FALSE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, TheFieldCountsOnlyAsTrue) {
  for (const nlohmann::json& value : {nlohmann::json("true"), nlohmann::json(1), nlohmann::json(false)}) {
    JobOutcome job;
    job.messages.push_back({{"type", "error"}, {"stage", "inputs"}, {"error_kind", "E"}, {"out_of_memory", value}});
    EXPECT_FALSE(ran_out_of_device_memory(job)) << value.dump();
  }
}

}  // namespace
}  // namespace keval
