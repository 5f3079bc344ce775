// WorkerSlot's deadline against a stand-in zygote (a small Python script speaking the runner's
// JSON lines): time the message hook spends blocked (waiting for the device) is not the job's.
#include "engine/runner/worker_slot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace keval {
namespace {

// A zygote whose one job sends `device_alone`, then works 0.3 s, then exits.
constexpr const char* kFakeZygote = R"PY(
import json, sys, time
print(json.dumps({"type": "ready"}), flush=True)
for line in sys.stdin:
    job = json.loads(line)["job"]
    print(json.dumps({"type": "started", "job": job, "pid": -1}), flush=True)
    print(json.dumps({"type": "device_alone", "job": job}), flush=True)
    time.sleep(0.3)
    print(json.dumps({"type": "done", "job": job}), flush=True)
    print(json.dumps({"type": "exit", "job": job, "code": 0, "signal": None}), flush=True)
)PY";

class WorkerSlotDeadlineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("keval_slot_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "keval_runner");
    std::ofstream(dir_ / "keval_runner" / "__init__.py");
    std::ofstream(dir_ / "keval_runner" / "__main__.py") << kFakeZygote;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  JobOutcome run_with_hook_blocking_for(std::chrono::milliseconds blocked) {
    RunnerConfig config;
    config.runner_dir = dir_;
    WorkerSlot slot(config, nullptr);
    return slot.run({{"op", "run"}}, std::chrono::milliseconds(1000),
                    [blocked](const nlohmann::json& message) {
                      if (message.value("type", "") == "device_alone") std::this_thread::sleep_for(blocked);
                    });
  }

  std::filesystem::path dir_;
};

TEST_F(WorkerSlotDeadlineTest, WaitingForTheDeviceDoesNotCountAgainstTheDeadline) {
  // 1.5 s blocked in the hook (the job works on meanwhile): past the 1 s deadline if it counted;
  // the job's own 0.3 s leave a loaded machine 0.7 s
  JobOutcome outcome = run_with_hook_blocking_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_TRUE(outcome.done);
  EXPECT_GE(outcome.wall_s, 1.5);
}

TEST_F(WorkerSlotDeadlineTest, TheJobsOwnTimeStillHasItsDeadline) {
  RunnerConfig config;
  config.runner_dir = dir_;
  WorkerSlot slot(config, nullptr);
  JobOutcome outcome = slot.run({{"op", "run"}}, std::chrono::milliseconds(100), nullptr);
  EXPECT_TRUE(outcome.timed_out);  // its 0.3 s of work can end no sooner, however idle the machine
}

// A zygote whose job sends what a runner must never send: a call with a mistyped fact, a
// message type the protocol lacks, a second `started` naming init's group, and an exit whose
// code is a string.
constexpr const char* kMalformedZygote = R"PY(
import json, sys
print(json.dumps({"type": "ready"}), flush=True)
for line in sys.stdin:
    job = json.loads(line)["job"]
    print(json.dumps({"type": "started", "job": job, "pid": -1}), flush=True)
    print(json.dumps({"type": "call", "job": job, "case": "odd", "dtype": "float32", "seed": 7, "ok": True,
                      "kernels": [], "other_kernels": [], "inputs_mutated": "no", "output_is_input": False,
                      "guard_violations": [], "foreign_output_types": []}), flush=True)
    print(json.dumps({"type": "turn", "job": job}), flush=True)
    print(json.dumps({"type": "started", "job": job, "pid": 1}), flush=True)
    print(json.dumps({"type": "done", "job": job}), flush=True)
    print(json.dumps({"type": "exit", "job": job, "code": "zero", "signal": None}), flush=True)
)PY";

TEST_F(WorkerSlotDeadlineTest, MalformedMessagesAreKeptAsFaultsNeverActedOn) {
  std::ofstream(dir_ / "keval_runner" / "__main__.py") << kMalformedZygote;
  RunnerConfig config;
  config.runner_dir = dir_;
  WorkerSlot slot(config, nullptr);
  std::vector<std::string> hooked;
  JobOutcome outcome = slot.run({{"op", "run"}}, std::chrono::milliseconds(5000), [&](const nlohmann::json& message) {
    hooked.push_back(message.value("type", ""));
  });
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_TRUE(outcome.done);
  EXPECT_FALSE(outcome.exit_code.has_value());  // "zero" is no exit code
  EXPECT_EQ(hooked, std::vector<std::string>{"done"});  // the hooks see well-formed messages only
  ASSERT_EQ(outcome.messages.size(), 4u);  // the call, the unknown type, the done, the exit
  EXPECT_EQ(*outcome.first_fault(),
            "fact 'inputs_mutated' of call message for case odd float32 seed 7 is string, expected a boolean");
  outcome.messages.erase(outcome.messages.begin());
  EXPECT_EQ(*outcome.first_fault(), "message type 'turn' is not in the protocol");
}

// A zygote that takes 1 s to leave once its stdin closes (as a CUDA teardown does).
constexpr const char* kSlowToLeaveZygote = R"PY(
import json, sys, time
print(json.dumps({"type": "ready"}), flush=True)
for line in sys.stdin:
    pass
time.sleep(1.0)
)PY";

TEST_F(WorkerSlotDeadlineTest, SlotsAskedToLeaveTogetherEndInTheTimeOfOne) {
  std::ofstream(dir_ / "keval_runner" / "__main__.py") << kSlowToLeaveZygote;
  RunnerConfig config;
  config.runner_dir = dir_;
  std::vector<std::unique_ptr<WorkerSlot>> slots;
  for (int i = 0; i < 4; ++i) {
    slots.push_back(std::make_unique<WorkerSlot>(config, nullptr));
    slots.back()->start();
  }
  const auto began = std::chrono::steady_clock::now();
  for (auto& slot : slots) slot->ask_to_leave();
  for (auto& slot : slots) slot->stop(std::chrono::seconds(5));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 3.0) << "one by one, four slots take 4 s";  // 2 s left for a loaded machine
}

}  // namespace
}  // namespace keval
