#include "engine/device_memory.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(DeviceMemoryTest, AnOutOfMemoryErrorOfACallCounts) {
  JobOutcome job;
  job.done = true;
  job.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "OutOfMemoryError"},
                          {"message", "CUDA out of memory. Tried to allocate 6.00 GiB"}});
  EXPECT_TRUE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, TheRunnersOwnAllocationFailingOnStderrCounts) {
  JobOutcome job;
  job.exit_code = 3;
  job.stderr_tail = "keval_runner: no guard bands for full/515486587: OutOfMemoryError('CUDA out of memory.')";
  EXPECT_TRUE(ran_out_of_device_memory(job));
}

TEST(DeviceMemoryTest, AContextOrACublasHandleThatCouldNotBeMadeCounts) {
  for (const char* message : {"AcceleratorError: CUDA error: out of memory\nSearch for `cudaErrorMemoryAllocation'",
                              "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"}) {
    JobOutcome job;
    job.exit_code = 3;
    job.messages.push_back({{"type", "error"}, {"stage", "runner"}, {"error_kind", "AcceleratorError"},
                            {"message", message}});
    EXPECT_TRUE(ran_out_of_device_memory(job)) << message;
  }
}

TEST(DeviceMemoryTest, OtherFailuresDoNot) {
  JobOutcome job;
  job.done = true;
  job.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "RuntimeError"},
                          {"message", "shape mismatch"}});
  job.stderr_tail = "a submission printing OutOfMemoryError after finishing";
  EXPECT_FALSE(ran_out_of_device_memory(job));
}

}  // namespace
}  // namespace keval
