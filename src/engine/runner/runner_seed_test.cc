// The seed (runner_seed.h) with the real seed.py and a stand-in zygote module in place of the
// one that imports torch: slots fork from one seed, a stuck zygote is still ended, and a seed
// that cannot start leaves each slot to exec its own zygote.
#include "engine/runner/runner_seed.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "engine/runner/worker_slot.h"

namespace keval {
namespace {

// seed.py needs import_toolkit() and serve(); main() is the exec'd zygote's entry.
constexpr const char* kStandInZygote = R"PY(
import json, os, sys, time

class _Library:
    __version__ = "stand-in"

def import_toolkit():
    return _Library(), _Library()

def serve(torch, triton, protocol_fd, parent_pid):
    out = os.fdopen(protocol_fd, "w", buffering=1)
    sockets = [fd for fd in os.listdir("/proc/self/fd")
               if os.path.exists(f"/proc/self/fd/{fd}") and os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")]
    out.write(json.dumps({"type": "ready", "pid": os.getpid(), "sockets": len(sockets),
                          "protocol_inheritable": os.get_inheritable(protocol_fd)}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)["job"]
        for message in ({"type": "started", "job": job, "pid": -1}, {"type": "done", "job": job},
                        {"type": "exit", "job": job, "code": 0, "signal": None}):
            out.write(json.dumps(message) + "\n")
    if os.environ.get("STAND_IN_STAYS"):
        time.sleep(60)
    return 0

def main():
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return serve(*import_toolkit(), protocol_fd=protocol_fd, parent_pid=os.getppid())
)PY";

constexpr const char* kMain = R"PY(
import sys
if sys.argv[1:] == ["--seed"]:
    from .seed import main
else:
    from .zygote import main
sys.exit(main())
)PY";

pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream after_name(text.substr(text.rfind(')') + 2));
  std::string state;
  pid_t parent = -1;
  after_name >> state >> parent;
  return parent;
}

bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

class RunnerSeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // a folder per test: the seed registry keys seeds by their runner folder
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = std::filesystem::temp_directory_path() / ("keval_seed_" + std::to_string(::getpid()) + "_" + test);
    std::filesystem::create_directories(dir_ / "keval_runner");
    std::filesystem::create_directories(dir_ / "logs");
    std::ofstream(dir_ / "keval_runner" / "__init__.py");
    std::ofstream(dir_ / "keval_runner" / "__main__.py") << kMain;
    std::ofstream(dir_ / "keval_runner" / "zygote.py") << kStandInZygote;
    std::filesystem::copy_file(std::filesystem::path(KEVAL_SOURCE_DIR) / "runner/keval_runner/seed.py",
                               dir_ / "keval_runner" / "seed.py");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RunnerConfig config() const {
    RunnerConfig config;
    config.runner_dir = dir_;
    config.log_path = dir_ / "logs" / "runner-0.log";
    config.fork_from_seed = true;
    return config;
  }

  std::filesystem::path dir_;
};

TEST_F(RunnerSeedTest, SlotsForkFromOneSeedAndRunJobs) {
  WorkerSlot first(config()), second(config());
  first.start();
  second.start();
  const pid_t one = first.ready_info()["pid"], two = second.ready_info()["pid"];
  EXPECT_NE(one, two);
  const pid_t seed = parent_of(one);
  EXPECT_EQ(parent_of(two), seed);
  EXPECT_NE(seed, ::getpid()) << "the zygote was exec'd by the controller, not forked by the seed";
  EXPECT_FALSE(first.ready_info()["protocol_inheritable"].get<bool>()) << "an exec'd guest could hold the protocol";
  EXPECT_EQ(first.ready_info()["sockets"], 0) << "a job could ask the seed for forks";
  EXPECT_TRUE(std::filesystem::exists(dir_ / "logs" / "runner-seed.log"));
  for (WorkerSlot* slot : {&first, &second}) {
    JobOutcome outcome = slot->run({{"op", "run"}}, std::chrono::milliseconds(5000), nullptr);
    EXPECT_TRUE(outcome.done);
    EXPECT_EQ(outcome.exit_code, 0);
  }
  first.stop(std::chrono::seconds(5));
  second.stop(std::chrono::seconds(5));
  EXPECT_TRUE(gone(one));
  EXPECT_TRUE(gone(two));
  EXPECT_FALSE(gone(seed)) << "the seed lives on for later slots";
}

TEST_F(RunnerSeedTest, AForkedZygoteThatWillNotLeaveIsKilled) {
  ::setenv("STAND_IN_STAYS", "1", 1);  // read by the seed's children when they leave
  WorkerSlot slot(config());
  slot.start();
  ::unsetenv("STAND_IN_STAYS");
  const pid_t zygote = slot.ready_info()["pid"];
  const auto began = std::chrono::steady_clock::now();
  slot.stop(std::chrono::seconds(1));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), 5.0);
  // the seed reaps it, however long a loaded machine takes to run the seed
  for (int i = 0; i < 3000 && !gone(zygote); ++i) ::usleep(20000);
  EXPECT_TRUE(gone(zygote));
}

TEST_F(RunnerSeedTest, AForkedZygoteThatDiesIsSeenAtOnceAndReplaced) {
  WorkerSlot slot(config());
  slot.start();
  ::kill(slot.ready_info()["pid"].get<pid_t>(), SIGKILL);
  // were its pipes still open in the seed, the job would wait out its deadline
  JobOutcome lost = slot.run({{"op", "run"}}, std::chrono::milliseconds(20000), nullptr);
  EXPECT_TRUE(lost.runner_lost);
  EXPECT_LT(lost.wall_s, 5.0);
  JobOutcome next = slot.run({{"op", "run"}}, std::chrono::milliseconds(5000), nullptr);
  EXPECT_TRUE(next.done);
}

TEST_F(RunnerSeedTest, ASeedThatCannotStartLeavesEachSlotToExecItsOwn) {
  std::ofstream(dir_ / "keval_runner" / "seed.py") << "def main():\n    return 3\n";
  WorkerSlot slot(config());
  slot.start();
  EXPECT_EQ(parent_of(slot.ready_info()["pid"]), ::getpid());
  JobOutcome outcome = slot.run({{"op", "run"}}, std::chrono::milliseconds(5000), nullptr);
  EXPECT_TRUE(outcome.done);
  EXPECT_EQ(seed_for(config()), nullptr);
}

}  // namespace
}  // namespace keval
