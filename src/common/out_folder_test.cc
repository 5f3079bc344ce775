#include "common/out_folder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

std::string error_of(const std::filesystem::path& out) {
  try {
    make_out_folder(out);
  } catch (const OutFolderError& e) {
    return e.what();
  }
  return "";
}

TEST(OutFolderTest, MakesAMissingFolderAndItsParents) {
  ScratchDir dir;
  make_out_folder(dir.path() / "a" / "b");
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "a" / "b"));
  make_out_folder(dir.path() / "a" / "b");  // already there: fine
}

TEST(OutFolderTest, AFileIsNamedInOneLine) {
  ScratchDir dir;
  std::ofstream(dir.path() / "results.txt") << "x";
  EXPECT_EQ(error_of(dir.path() / "results.txt"), "--out " + (dir.path() / "results.txt").string() + ": is a file, not a folder");
  const std::string below = error_of(dir.path() / "results.txt" / "run");
  EXPECT_EQ(below, "--out " + (dir.path() / "results.txt" / "run").string() + ": cannot be made: " +
                       (dir.path() / "results.txt").string() + " is a file");
}

}  // namespace
}  // namespace keval
