#include "report/result_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace keval {
namespace {

TEST(ResultTable, ASlowPassShowsItsSpeedupNotZero) {
  SubmissionResult slow;
  slow.id = "slow";
  slow.task = "relu";
  slow.judgement.verdict = Verdict::kPass;
  slow.speedup = 0.0045;
  const nlohmann::json summary = {{"n", 1}, {"call_accuracy", 1.0}, {"exec_accuracy", 1.0},
                                  {"geomean_speedup", 0.0045}};
  std::ostringstream table;
  print_result_table(table, {slow}, summary);
  EXPECT_NE(table.str().find("pass            0.0045x"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("geomean speedup 0.0045x"), std::string::npos) << table.str();
  EXPECT_EQ(table.str().find("0.00x"), std::string::npos) << table.str();
}

}  // namespace
}  // namespace keval
