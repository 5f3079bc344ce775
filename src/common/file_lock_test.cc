#include "common/file_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace keval {
namespace {

// A child process takes the lock, writes "child" after a pause and exits; the parent's lock
// must wait for it, so the parent's line comes second.
TEST(FileLockTest, ASecondProcessWaitsUntilTheFirstReleasesIt) {
  const auto dir = std::filesystem::temp_directory_path() / ("keval-lock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto lock = dir / "sub" / "suite.lock";
  const auto log = dir / "order.txt";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    FileLock held(lock);
    char one = '1';
    (void)!::write(ready[1], &one, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::ofstream(log, std::ios::app) << "child\n";
    ::_exit(0);
  }
  char byte;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  {
    FileLock mine(lock);
    std::ofstream(log, std::ios::app) << "parent\n";
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  std::ifstream in(log);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(first, "child");
  EXPECT_EQ(second, "parent");
  std::filesystem::remove_all(dir);
}

TEST(FileLockTest, AnUnopenableFileIsNamedInTheError) {
  try {
    FileLock lock("/proc/keval-no-such/x.lock");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/keval-no-such/x.lock"), std::string::npos);
  }
}

}  // namespace
}  // namespace keval
