#include "report/job_seconds.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(JobSecondsTest, WallTimeAndNumericPhasesOfEachJobThatRan) {
  EvaluationFacts facts;
  facts.candidate.wall_s = 2.5;
  facts.candidate.messages = {{{"type", "done"}, {"phases", {{"calls", 1.25}, {"load", "x"}}}}};
  JobOutcome reference;
  reference.wall_s = 1.0;
  facts.reference = reference;
  nlohmann::json seconds = job_seconds(facts);
  EXPECT_DOUBLE_EQ(seconds["candidate"]["wall_s"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(seconds["candidate"]["phases"]["calls"].get<double>(), 1.25);
  EXPECT_FALSE(seconds["candidate"]["phases"].contains("load"));  // not a number: dropped
  EXPECT_TRUE(seconds["reference"]["phases"].empty());            // no done message
  EXPECT_FALSE(seconds.contains("timing"));
}

TEST(JobSecondsTest, PeakMemoryOfEachJobWhereItsDoneSentIt) {
  EvaluationFacts facts;
  facts.candidate.messages = {{{"type", "done"}, {"job", "c"}, {"phases", nlohmann::json::object()},
                               {"peak_memory", {{"host_bytes", 900}, {"gpu_bytes", 0}, {"guest_gpu_bytes", 4096}, {"io_bytes", 64}}}}};
  JobOutcome timing;
  timing.messages = {{{"type", "done"}, {"job", "t"}, {"phases", nlohmann::json::object()},
                      {"peak_memory", {{"host_bytes", 700}, {"gpu_bytes", 2048}}}}};
  facts.timing = timing;
  JobOutcome reference;  // a done whose peak is malformed does not parse: no figure is made up
  reference.messages = {{{"type", "done"}, {"job", "r"}, {"phases", nlohmann::json::object()},
                         {"peak_memory", {{"host_bytes", "lots"}, {"gpu_bytes", 1}}}}};
  facts.reference = reference;
  nlohmann::json seconds = job_seconds(facts);
  EXPECT_EQ(seconds["candidate"]["peak_memory"],
            nlohmann::json({{"host_bytes", 900}, {"gpu_bytes", 0}, {"guest_gpu_bytes", 4096}, {"io_bytes", 64}}));
  EXPECT_EQ(seconds["timing"]["peak_memory"], nlohmann::json({{"host_bytes", 700}, {"gpu_bytes", 2048}}));
  EXPECT_FALSE(seconds["reference"].contains("peak_memory"));
}

}  // namespace
}  // namespace keval
