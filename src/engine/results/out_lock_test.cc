#include "engine/results/out_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>

namespace keval {
namespace {

std::filesystem::path scratch(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(OutLockTest, SecondRunIntoTheSameFolderIsRefusedWithTheHoldersPid) {
  const auto out = scratch("out-lock");
  OutLock first(out);
  try {
    OutLock second(out);
    FAIL() << "a second lock on one folder was granted";
  } catch (const OutFolderBusy& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(out.string()), std::string::npos) << what;
    EXPECT_NE(what.find("pid " + std::to_string(::getpid())), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
  }
  std::filesystem::remove_all(out);
}

TEST(OutLockTest, FolderIsFreeAgainOnceTheRunEnds) {
  const auto out = scratch("out-lock-free");
  { OutLock first(out); }
  EXPECT_NO_THROW(OutLock again(out));
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace keval
