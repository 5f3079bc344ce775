#include "report/status_sources.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace keval {
namespace {

class StatusSourcesTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("keval_status_" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

TEST_F(StatusSourcesTest, ALaterFilesResultReplacesAnEarlierOneForTheSameTask) {
  auto first = write("a.jsonl", R"({"task": "relu", "id": "golden:relu", "verdict": "mismatch"}
{"task": "softmax", "id": "golden:softmax", "verdict": "pass"}
)");
  auto second = write("b.jsonl", "\n" R"({"task": "relu", "id": "golden:relu", "verdict": "pass"})" "\n");
  auto summary = write("summary.json", R"({"environment": {"gpu": "NVIDIA H200"}})");
  StatusSources sources = read_status_sources({first, second}, summary);
  ASSERT_EQ(sources.results.size(), 2u);
  EXPECT_EQ(sources.results[0].task, "relu");
  EXPECT_EQ(sources.results[0].judgement.verdict, Verdict::kPass);
  EXPECT_EQ(sources.results[1].task, "softmax");
  EXPECT_EQ(sources.summary["environment"]["gpu"], "NVIDIA H200");
  EXPECT_NE(sources.note.find("2 validate run(s)"), std::string::npos);
}

TEST_F(StatusSourcesTest, ABadLineOrAMissingFileIsAnErrorNamingIt) {
  auto bad = write("bad.jsonl", R"({"task": "relu"})" "\nnot json\n");
  try {
    read_status_sources({bad}, "");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_status_sources({(dir / "missing.jsonl").string()}, ""), std::runtime_error);
  auto good = write("good.jsonl", R"({"task": "relu"})" "\n");
  EXPECT_THROW(read_status_sources({good}, write("summary.json", "[1]")), std::runtime_error);
}

}  // namespace
}  // namespace keval
