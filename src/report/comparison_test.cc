#include "report/comparison.h"

#include <fstream>

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

void write_run(const std::filesystem::path& dir, const std::vector<nlohmann::json>& results) {
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / "results.jsonl");
  for (const auto& r : results) out << r.dump() << "\n";
}

nlohmann::json result(const std::string& task, const std::string& verdict, const std::string& model,
                      std::optional<double> speedup = std::nullopt) {
  nlohmann::json r = {{"id", task}, {"task", task}, {"verdict", verdict}, {"call", true},
                      {"timing_method", nullptr}, {"baseline", nullptr},
                      {"speedup", speedup ? nlohmann::json(*speedup) : nlohmann::json(nullptr)}};
  if (!model.empty()) r["generation"] = {{"model", model}};
  return r;
}

TEST(ComparisonTest, OneEntryPerModelAndPerRunWithoutModels) {
  ScratchDir scratch;
  write_run(scratch.path() / "a", {result("relu", "pass", "m1", 1.5), result("relu", "mismatch", "m1"),
                                   result("relu", "pass", "m2", 0.9), result("relu", "pass", "m2", 1.1)});
  write_run(scratch.path() / "b", {result("relu", "pass", ""), result("softmax", "crash", "")});
  const auto comparison = comparison_json(load_compared_entries({scratch.path() / "a", scratch.path() / "b"}));
  const auto& entries = comparison["entries"];
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["label"], "m1");
  EXPECT_DOUBLE_EQ(entries[0]["pass_at_k"]["1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(entries[1]["pass_at_k"]["2"].get<double>(), 1.0);
  EXPECT_EQ(entries[2]["label"], "b");
  EXPECT_EQ(comparison["tasks"]["relu"]["m1"]["passes"], 1);
  EXPECT_DOUBLE_EQ(comparison["tasks"]["relu"]["m1"]["best_speedup"].get<double>(), 1.5);
  const std::string table = comparison_markdown(comparison);
  EXPECT_NE(table.find("| m1 | 2 | 1 | 0.500 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| relu | 1/2 (1.50×) | 2/2 (1.10×) | 1/1 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| softmax | – | – | 0/1 |"), std::string::npos) << table;
}

TEST(ComparisonTest, TheSameModelInTwoRunsIsLabelledByRun) {
  ScratchDir scratch;
  write_run(scratch.path() / "x", {result("relu", "pass", "m")});
  write_run(scratch.path() / "y", {result("relu", "mismatch", "m")});
  const auto entries = load_compared_entries({scratch.path() / "x", scratch.path() / "y"});
  EXPECT_EQ(entries[0].label, "x:m");
  EXPECT_EQ(entries[1].label, "y:m");
}

TEST(ComparisonTest, AMissingOrBrokenResultsFileNamesIt) {
  ScratchDir scratch;
  EXPECT_THROW(
      {
        try {
          load_compared_entries({scratch.path() / "nothing"});
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("nothing: no such file"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  std::filesystem::create_directories(scratch.path() / "broken");
  std::ofstream(scratch.path() / "broken" / "results.jsonl") << result("relu", "pass", "").dump() << "\n{oops\n";
  try {
    load_compared_entries({scratch.path() / "broken"});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken/results.jsonl:2: not a result object"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace keval
