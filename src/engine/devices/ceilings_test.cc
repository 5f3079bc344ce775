#include "engine/devices/ceilings.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/runner/job_runner.h"

namespace keval {
namespace {

// A runner whose ceilings job takes a while, counting how many it was asked for.
class SlowCeilingsRunner : public JobRunner {
 public:
  using JobRunner::run;
  JobOutcome run(nlohmann::json, std::chrono::milliseconds, const MessageHook&) override {
    ++measured;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    JobOutcome job;
    job.messages.push_back({{"type", "ceilings"}, {"copy_gbps", 4250.0}, {"matmul_tflops", {{"bfloat16", 785.0}}}});
    return job;
  }
  std::atomic<int> measured{0};
};

class CeilingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("keval_ceilings_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ::setenv("KEVAL_CACHE_DIR", (dir / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("KEVAL_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
  std::filesystem::path dir;
};

TEST_F(CeilingsTest, LanesStartingTogetherMeasureOnceAndShareTheCache) {
  SlowCeilingsRunner runner;
  std::optional<Ceilings> first, second;
  std::thread a([&] { first = load_or_measure_ceilings(runner, "NVIDIA H200", "580", dir / "a"); });
  std::thread b([&] { second = load_or_measure_ceilings(runner, "NVIDIA H200", "580", dir / "b"); });
  a.join();
  b.join();
  EXPECT_EQ(runner.measured.load(), 1);
  ASSERT_TRUE(first && second);
  EXPECT_DOUBLE_EQ(first->copy_gbps, 4250.0);
  EXPECT_DOUBLE_EQ(second->copy_gbps, 4250.0);
  EXPECT_DOUBLE_EQ(second->matmul_tflops.at("bfloat16"), 785.0);
}

TEST_F(CeilingsTest, ACachedMeasurementIsReadWithoutAJob) {
  SlowCeilingsRunner runner;
  ASSERT_TRUE(load_or_measure_ceilings(runner, "NVIDIA H200", "580", dir / "a"));
  ASSERT_TRUE(load_or_measure_ceilings(runner, "NVIDIA H200", "580", dir / "b"));
  EXPECT_EQ(runner.measured.load(), 1);
  EXPECT_TRUE(std::filesystem::exists(ceilings_cache_path("NVIDIA H200", "580")));
}

}  // namespace
}  // namespace keval
