#include "report/submission_result.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

using nlohmann::json;

TEST(SubmissionResultTest, CaseChecksSurviveARoundTripThroughResultsJsonl) {
  SubmissionResult r;
  r.judgement = {Verdict::kMismatch, {"case odd float32 seed 8: output 0: 5 of 37 elements outside tolerance"}};
  r.case_checks = std::vector<CaseCheck>{
      {"odd", "float32", 7, json::array({json::array({37})}), "pass", "", 0.0, 0.0},
      {"odd", "float32", 8, json::array({json::array({37})}), "mismatch", "output 0: 5 of 37 elements", 2.5, 1.0}};
  const json line = json::parse(r.to_json().dump());  // as keval merge, resume and the store read it
  const SubmissionResult back = SubmissionResult::from_json(line);
  ASSERT_TRUE(back.case_checks);
  ASSERT_EQ(back.case_checks->size(), 2u);
  EXPECT_EQ(back.to_json()["case_checks"], line["case_checks"]);
  EXPECT_EQ(line["case_checks"][1]["result"], "mismatch");
  EXPECT_EQ(line["case_checks"][1]["seed"], 8);
}

TEST(SubmissionResultTest, ALineWrittenBeforeCaseChecksStaysWithoutThem) {
  json older = SubmissionResult{}.to_json();
  older.erase("case_checks");
  const SubmissionResult back = SubmissionResult::from_json(older);
  EXPECT_FALSE(back.case_checks);
  EXPECT_TRUE(back.to_json()["case_checks"].is_null()) << "null: not known, never an empty list (none made)";
  SubmissionResult none;
  none.case_checks.emplace();
  EXPECT_EQ(SubmissionResult::from_json(none.to_json()).to_json()["case_checks"], json::array());
}

}  // namespace
}  // namespace keval
