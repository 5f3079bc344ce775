// The timing settings the controller sends: every figure of the runner's stopping rule and
// sampling is the controller's, so the runner never falls back on a default of its own.
#include "engine/settings/run_settings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "engine/settings/run_options.h"

namespace keval {
namespace {

using nlohmann::json;

json timing_schema() {
  std::ifstream in(std::string(KEVAL_SOURCE_DIR) + "/runner/keval_runner/protocol/request.schema.json");
  return json::parse(in)["$defs"]["timing"];
}

TEST(TimingSettingsTest, SendsEveryFigureTheRunnerReads) {
  // held here: a range-for over a member of a temporary would outlive the temporary
  const json properties = timing_schema()["properties"];
  for (const TimingSettings& settings : {TimingSettings{}, TimingSettings::for_device("cpu")}) {
    const json sent = settings.to_json();
    for (const auto& [name, field] : properties.items()) {
      EXPECT_TRUE(sent.contains(name)) << name;
    }
    for (const auto& [name, value] : sent.items()) {
      EXPECT_TRUE(properties.contains(name)) << name << " is not in the request schema";
    }
  }
}

TEST(TimingSettingsTest, StoppingFiguresAreTheRunnersDefaults) {
  // The values the runner had as constants; the schema keeps them for requests without them.
  const json sent = TimingSettings{}.to_json();
  const json fields = timing_schema()["properties"];
  for (const char* name : {"target_rel_stdev", "min_seconds", "low_clock_fraction", "launch_cover_us", "done_wait_s",
                           "timed_output_tolerance_factor", "timed_output_span_factor"}) {
    EXPECT_DOUBLE_EQ(sent[name].get<double>(), fields[name]["default"].get<double>()) << name;
  }
  EXPECT_DOUBLE_EQ(sent["target_rel_stdev"].get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(sent["low_clock_fraction"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(sent["launch_cover_us"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(sent["min_seconds"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(sent["done_wait_s"].get<double>(), 120);
  EXPECT_DOUBLE_EQ(sent["timed_output_tolerance_factor"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(sent["timed_output_span_factor"].get<double>(), 2);
}

TEST(TimingSettingsTest, TheGpuSamplesTillTheHarnessSpreadOutweighsThemTheCpuDoesNot) {
  const json cuda = TimingSettings::for_device("cuda").to_json();
  EXPECT_DOUBLE_EQ(cuda["spread_share"].get<double>(), 0.15);
  ASSERT_EQ(cuda["spread_bands"].size(), cuda_event_spread_bands().size());
  for (const json& band : cuda["spread_bands"]) {  // each band's spread is the judge's own figure
    EXPECT_DOUBLE_EQ(band[1].get<double>(), harness_spread("cuda_event_cold_l2", band[0].get<double>()));
  }
  const json cpu = TimingSettings::for_device("cpu").to_json();
  EXPECT_DOUBLE_EQ(cpu["spread_share"].get<double>(), 0);
  EXPECT_TRUE(cpu["spread_bands"].empty());
  EXPECT_DOUBLE_EQ(timing_schema()["properties"]["spread_share"]["default"].get<double>(), 0);
}

TEST(TimingSettingsTest, TheGpuSharesAGateOpeningAmongCallsTheCpuTimesOneCallARoundTrip) {
  const json cuda = TimingSettings::for_device("cuda").to_json();
  EXPECT_EQ(cuda["cuda_clock"].get<std::string>(), "warden");  // no sample is the submission's word
  EXPECT_EQ(cuda["timed_calls_max"].get<int>(), 8);
  EXPECT_DOUBLE_EQ(cuda["timed_calls_bytes"].get<double>(), 1 << 30);
  const json cpu = TimingSettings::for_device("cpu").to_json();
  EXPECT_EQ(cpu["timed_calls_max"].get<int>(), 1);
  // a request without them (an older controller) gets one call a sample
  EXPECT_EQ(timing_schema()["properties"]["timed_calls_max"]["default"].get<int>(), 1);
}

TEST(SlotsPerGpuTest, JobsWinElseHalfTheCoresPerGpuFromTwoToEightOnCudaAndTwoOnTheCpu) {
  EXPECT_EQ(slots_per_gpu(5, "cuda", 16, 1), 5);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 16, 1), 8);   // the H200 machine
  EXPECT_EQ(slots_per_gpu(0, "cuda", 128, 8), 8);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 32, 2), 8);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 24, 4), 3);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 2, 1), 2);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 0, 1), 2);    // cores unknown
  EXPECT_EQ(slots_per_gpu(0, "cpu", 64, 1), 2);
}

TEST(SlotsPerGpuTest, AtMostOneDefaultSlotPerTwelveGibOfGpuMemory) {
  const int64_t gib = int64_t{1} << 30;
  EXPECT_EQ(slots_per_gpu(0, "cuda", 16, 1, 141 * gib), 8);  // the H200
  EXPECT_EQ(slots_per_gpu(0, "cuda", 16, 1, 80 * gib), 6);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 16, 1, 24 * gib), 2);
  EXPECT_EQ(slots_per_gpu(0, "cuda", 16, 1, 8 * gib), 2);    // never below two
  EXPECT_EQ(slots_per_gpu(0, "cuda", 8, 1, 141 * gib), 4);   // the cores still bound it
  EXPECT_EQ(slots_per_gpu(3, "cuda", 16, 1, 8 * gib), 3);    // --jobs wins
}

TEST(TimingSettingsTest, MinSamplesHoldsTheStoppingRuleAndRaisesTheCapWithIt) {
  RunOptions options;
  options.timing_min_samples = 150;
  RunSettings settings = run_settings(options, "cuda");
  EXPECT_EQ(settings.timing.min_samples, 150);
  EXPECT_EQ(settings.timing.max_samples, 150);  // every case takes 150: a record to replay rules on
  options.timing_max_samples = 200;
  settings = run_settings(options, "cuda");
  EXPECT_EQ(settings.timing.min_samples, 150);
  EXPECT_EQ(settings.timing.max_samples, 200);
  options.timing_min_samples = 5;
  EXPECT_EQ(run_settings(options, "cuda").timing.min_samples, 5);
  options.timing_min_samples = 300;
  try {
    run_settings(options, "cuda");
    FAIL() << "a minimum over the cap was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--min-samples 300 is more than --max-samples 200");
  }
}

}  // namespace
}  // namespace keval
