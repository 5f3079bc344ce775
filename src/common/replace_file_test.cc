#include "common/replace_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

std::string text_of(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(ReplaceFileTest, ReplacesTheTextAndLeavesNothingBeside) {
  ScratchDir dir;
  const auto path = dir.path() / "results.jsonl";
  std::ofstream(path) << "old line that is longer than the new text\n";
  replace_file(path, "new\n");
  EXPECT_EQ(text_of(path), "new\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(ReplaceFileTest, AMissingFolderIsNamedInTheError) {
  ScratchDir dir;
  const auto path = dir.path() / "no-such-folder" / "summary.json";
  try {
    replace_file(path, "{}\n");
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json: cannot be written"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace keval
