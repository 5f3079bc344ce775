#include "engine/results/golden_record.h"

#include <gtest/gtest.h>

#include <fstream>

namespace keval {
namespace {

nlohmann::json environment(const std::string& driver,
                           const std::string& timing = "CUDA events, cold L2, launch cover") {
  return {{"gpu", "NVIDIA H200"}, {"driver", driver}, {"torch", "2.11.0"}, {"triton", "3.6.0"},
          {"timing_note", timing}};
}

SubmissionResult timed_golden() {
  SubmissionResult r;
  r.task = "softmax";
  r.judgement.verdict = Verdict::kPass;
  CaseResult c;
  c.name = "large";
  c.dtype = "float16";
  c.time_ms = 0.25;
  c.samples = 30;
  r.cases.push_back(c);
  return r;
}

TEST(GoldenRecordTest, RoundTripsMediansForTheSameTaskVersion) {
  auto path = std::filesystem::temp_directory_path() / ("keval_golden_" + std::to_string(::getpid()) + ".json");
  GoldenRecord::from_results({timed_golden()}, environment("580"), {{"softmax", 3}}).save(path);
  GoldenRecord record = GoldenRecord::load(path);
  EXPECT_EQ(record.median_ms("softmax", 3, "large", "float16"), 0.25);
  EXPECT_FALSE(record.median_ms("softmax", 4, "large", "float16").has_value());
  EXPECT_FALSE(record.median_ms("softmax", 3, "large", "float32").has_value());
  std::filesystem::remove(path);
}

TEST(GoldenRecordTest, RefusesAnotherDriver) {
  GoldenRecord record = GoldenRecord::from_results({timed_golden()}, environment("580"), {});
  EXPECT_EQ(record.mismatch(environment("580")), "");
  std::string why = record.mismatch(environment("575"));
  EXPECT_NE(why.find("575"), std::string::npos);
  EXPECT_NE(why.find("keval golden record"), std::string::npos);
}

TEST(GoldenRecordTest, RefusesAnotherSamplingLoop) {
  // a record made before the launch cover: its medians include the host's launch latency
  GoldenRecord record = GoldenRecord::from_results({timed_golden()}, environment("580", "CUDA events, cold L2"), {});
  EXPECT_NE(record.mismatch(environment("580")).find("launch cover"), std::string::npos);
  EXPECT_EQ(GoldenRecord::file_name_for(environment("580")),
            GoldenRecord::file_name_for(environment("580", "CUDA events, cold L2")));
}

TEST(GoldenRecordTest, LoadNamesABadFile) {
  auto path = std::filesystem::temp_directory_path() / ("keval_bad_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << "{\"x\": 1}";
  try {
    GoldenRecord::load(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace keval
