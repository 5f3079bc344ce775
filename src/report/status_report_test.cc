#include "report/status_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace keval {
namespace {

TEST(StatusReport, ListsTheSuitesTasksWithoutAResultAndTheNoteOfItsSources) {
  Suite suite = Suite::load(std::filesystem::path(KEVAL_SOURCE_DIR) / "suites" / "keval");
  SubmissionResult relu;
  relu.task = "relu";
  relu.judgement.verdict = Verdict::kPass;
  CaseResult c;
  c.name = "large";
  c.dtype = "float32";
  c.time_ms = 0.5;
  c.efficiency = 0.8;
  relu.cases.push_back(c);
  std::ostringstream out;
  write_status_report(out, suite, {relu}, nlohmann::json::object(), "Written from 1 run.");
  const std::string text = out.str();
  EXPECT_NE(text.find("Written from 1 run."), std::string::npos);
  EXPECT_NE(text.find("| relu | ops | pass | large | float32 | 0.5000 |"), std::string::npos) << text;
  EXPECT_NE(text.find("Median golden efficiency: 80%"), std::string::npos);
  const std::string missing = "Not in these results (" + std::to_string(suite.tasks().size() - 1) + " of " +
                              std::to_string(suite.tasks().size()) + " tasks): adamw_step, ";
  EXPECT_NE(text.find(missing), std::string::npos) << text.substr(text.size() - 300);
  EXPECT_EQ(text.find(", relu,"), std::string::npos);
}

TEST(StatusReport, SmallSpeedupsKeepTwoSignificantDigits) {
  Suite suite = Suite::load(std::filesystem::path(KEVAL_SOURCE_DIR) / "suites" / "keval");
  SubmissionResult relu;
  relu.task = "relu";
  relu.judgement.verdict = Verdict::kPass;
  CaseResult c;
  c.name = "large";
  c.dtype = "float32";
  c.time_ms = 32.0;  // the CPU interpreter
  c.baseline_ms = {{"eager", 0.04}, {"compile", 64.0}};
  relu.cases.push_back(c);
  std::ostringstream out;
  write_status_report(out, suite, {relu}, nlohmann::json::object(), "");
  EXPECT_NE(out.str().find("| 0.0013x | 2.00x |"), std::string::npos) << out.str().substr(0, 2000);
}

}  // namespace
}  // namespace keval
