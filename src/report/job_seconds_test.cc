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

}  // namespace
}  // namespace keval
