#include "engine/runner/sanitized_runner.h"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "judge/judge.h"
#include "judge/judge_test_facts.h"

namespace keval {
namespace {

using nlohmann::json;

const char* kLogWithError = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at add_kernel+0x1d0 in /work/submission.py:12
=========     by thread (127,0,0) in block (3,0,0)
=========     Address 0x7f0c5e000fa0 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f0c5e000000 of size 4000 bytes
=========
========= ERROR SUMMARY: 1 error
========= ERROR SUMMARY: 0 errors
)";

TEST(MemcheckLog, CountsErrorsOverEveryProcessAndKeepsTheFirstLines) {
  MemcheckReport report = parse_memcheck_log(kLogWithError);
  EXPECT_TRUE(report.summary_found);
  EXPECT_EQ(report.errors, 1);
  ASSERT_EQ(report.first_errors.size(), 2u);
  EXPECT_EQ(report.first_errors[0], "Invalid __global__ write of size 4 bytes");
  EXPECT_EQ(parse_memcheck_log("========= ERROR SUMMARY: 0 errors\n").errors, 0);
  EXPECT_FALSE(parse_memcheck_log("python: command not found\n").summary_found);
}

// Writes `log_text` where the tool would, as the job runs.
class LoggingRunner : public JobRunner {
 public:
  LoggingRunner(std::filesystem::path log, std::string text) : log_(std::move(log)), text_(std::move(text)) {}
  using JobRunner::run;
  JobOutcome run(json, std::chrono::milliseconds, const MessageHook&) override {
    if (!text_.empty()) std::ofstream(log_) << text_;
    JobOutcome out;
    out.done = true;
    out.exit_code = 0;
    out.messages.push_back({{"type", "done"}});
    return out;
  }

 private:
  std::filesystem::path log_;
  std::string text_;
};

EvaluationFacts passing_facts() {
  return test_facts::facts_with({test_facts::output({37}, "float32", 0)});
}

class SanitizedRunnerTest : public ::testing::Test {
 protected:
  std::filesystem::path log = std::filesystem::temp_directory_path() /
                              ("keval_memcheck_" + std::to_string(::getpid()) + ".log");
  void TearDown() override { std::filesystem::remove(log); }

  Judgement judged(const std::string& log_text) {
    LoggingRunner inner(log, log_text);
    int finished = 0;
    SanitizedRunner runner(inner, [&] { ++finished; }, log);
    EvaluationFacts facts = passing_facts();
    facts.sanitizer = runner.run(json::object(), std::chrono::seconds(1));
    EXPECT_EQ(finished, 1);  // the process is ended so the tool writes its summary
    return judge(facts, JudgePolicy{});
  }
};

TEST_F(SanitizedRunnerTest, MemcheckErrorsAreOutOfBounds) {
  Judgement j = judged(kLogWithError);
  EXPECT_EQ(j.verdict, Verdict::kOutOfBounds);
  EXPECT_NE(j.reasons.at(0).find("Invalid __global__ write"), std::string::npos) << j.reasons.at(0);
}

TEST_F(SanitizedRunnerTest, CleanLogPasses) {
  EXPECT_EQ(judged("========= ERROR SUMMARY: 0 errors\n").verdict, Verdict::kPass);
}

TEST_F(SanitizedRunnerTest, MissingSummaryIsAHarnessCrashNotAPass) {
  std::ofstream(log) << "========= ERROR SUMMARY: 0 errors\n";  // a stale log of an earlier job
  Judgement j = judged("");
  EXPECT_EQ(j.verdict, Verdict::kCrash);
  EXPECT_NE(j.reasons.at(0).find("no error summary"), std::string::npos);
}

}  // namespace
}  // namespace keval
