#include "engine/session/stale_scratch.h"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

extern char** environ;

namespace keval {
namespace {

std::filesystem::path fresh_base(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

TEST(StaleScratchTest, RemovesTheFoldersOfGoneKevalsOnly) {
  const auto base = fresh_base("stale-scratch");
  for (const char* folder : {"100-gone", "200-live", "notapid", "300-", "-400", "5x-gone"}) {
    std::filesystem::create_directories(base / folder / "job");
  }
  std::ofstream(base / "100-gone" / "job" / "submission.py") << "x";
  std::ofstream(base / "600-a-file") << "not a folder";
  const auto live = [](pid_t pid) { return pid == 200; };

  EXPECT_EQ(remove_stale_scratch(base, live), 1);
  EXPECT_EQ(names_in(base), (std::set<std::string>{"200-live", "notapid", "300-", "-400", "5x-gone", "600-a-file"}));
  std::filesystem::remove_all(base);
}

TEST(StaleScratchTest, LeavesALinkNamedAsAGoneKevalsFolderAndWhatItPointsTo) {
  const auto base = fresh_base("stale-scratch-link");
  const auto elsewhere = fresh_base("stale-scratch-elsewhere");
  std::ofstream(elsewhere / "precious") << "x";
  std::filesystem::create_directory_symlink(elsewhere, base / "100-link");

  EXPECT_EQ(remove_stale_scratch(base, [](pid_t) { return false; }), 0);
  EXPECT_TRUE(std::filesystem::is_symlink(base / "100-link"));
  EXPECT_TRUE(std::filesystem::exists(elsewhere / "precious"));
  std::filesystem::remove_all(base);
  std::filesystem::remove_all(elsewhere);
}

TEST(StaleScratchTest, LeavesTheFoldersOfAnotherUid) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a folder to another uid needs root";
  const auto base = fresh_base("stale-scratch-uid");
  std::filesystem::create_directories(base / "100-theirs");
  ASSERT_EQ(::chown((base / "100-theirs").c_str(), 65534, 65534), 0);

  EXPECT_EQ(remove_stale_scratch(base, [](pid_t) { return false; }), 0);
  EXPECT_TRUE(std::filesystem::exists(base / "100-theirs"));
  std::filesystem::remove_all(base);
}

TEST(StaleScratchTest, AKevalIsLiveUntilItExitsAndAnotherProgramIsNone) {
  EXPECT_TRUE(is_live_keval(::getpid()));  // this test program counts as keval: its own name

  // posix_spawn returns once the child runs `sleep` (glibc waits for the exec)
  pid_t sleeper = 0;
  char sleep_name[] = "sleep";
  char seconds[] = "60";
  char* argv[] = {sleep_name, seconds, nullptr};
  ASSERT_EQ(::posix_spawnp(&sleeper, "sleep", nullptr, nullptr, argv, environ), 0);
  EXPECT_FALSE(is_live_keval(sleeper)) << "a live process of another program";
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);

  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // exited, not reaped
  EXPECT_FALSE(is_live_keval(child)) << "a zombie of this program";
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(is_live_keval(child)) << "a reaped pid";
}

}  // namespace
}  // namespace keval
