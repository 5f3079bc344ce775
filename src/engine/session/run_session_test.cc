// A whole run_session in memory: fake worker slots in a WarmEngine answer every job, so the
// scheduler, the store, resume and the lost-runner path run for real with no Python started.
#include "engine/session/run_session.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

#include "common/scratch_dir_for_test.h"
#include "engine/runner/run_interruption.h"
#include "submission/submission.h"

namespace keval {
namespace {

using nlohmann::json;

const char* kTaskToml = R"toml(name = "twice"
version = 1
track = "ops"
category = "elementwise"
difficulty = 1
entry = "twice"
signature = "twice(x)"
instruction = "Multiply x by two."
dtypes = ["float32"]
flops = "N"
bytes = "2 * N * elem"

[tolerance.float32]
atol = 1e-6
rtol = 1e-6
reason = "exact up to rounding"

[[cases]]
name = "tiny"
small = true
params = { N = 5 }
)toml";

// What each fake job saw, shared by the slots of one run.
struct Journal {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::pair<size_t, std::string>> candidates;  // (slot, code) per candidate job
  std::vector<size_t> finished_by_slot = std::vector<size_t>(8, 0);
  std::string interrupt_at;  // a Ctrl-C arrives during the candidate job of code holding this
};

// One slot's runner: answers the candidate and reference jobs the way a correct submission's
// would, from the request's own cases and seeds. The code decides the rest: "LOSE" loses the
// runner, Journal::interrupt_at is a Ctrl-C during the job, and "SLOW" waits until another
// slot has finished a job, so it ends only if the slots work side by side.
class FakeSlotRunner : public JobRunner {
 public:
  FakeSlotRunner(size_t slot, Journal& journal) : slot_(slot), journal_(journal) {}
  using JobRunner::run;
  JobOutcome run(json request, std::chrono::milliseconds, const MessageHook&) override {
    if (run_interrupted()) throw RunInterrupted();  // as WorkerSlot: no new job once interrupted
    const std::string kind = request["kind"];
    JobOutcome out;
    if (kind == "candidate") {
      const std::string code = read_code(request);
      {
        std::lock_guard lock(journal_.mutex);
        journal_.candidates.emplace_back(slot_, code);
      }
      if (code.find("SLOW") != std::string::npos) wait_for_another_slot();
      if (!journal_.interrupt_at.empty() && code.find(journal_.interrupt_at) != std::string::npos) {
        ::raise(SIGINT);  // RunInterruption's handler: the run stops taking jobs
        throw RunInterrupted();
      }
      if (code.find("LOSE") != std::string::npos) {
        out.runner_lost = true;
        out.stderr_tail = "runner zygote died";
        return out;
      }
    }
    out.done = true;
    out.exit_code = 0;
    for (const json& c : request["cases"]) {
      bool first = true;
      for (const json& seed : c["seeds"]) {
        const json at = {{"case", c["name"]}, {"dtype", c["dtype"]}, {"seed", seed}};
        if (kind == "candidate") {
          json call = at;
          call.update({{"type", "call"}, {"ok", true}, {"kernels", {"k"}}, {"other_kernels", json::array()},
                       {"inputs_mutated", false}, {"output_is_input", false},
                       {"guard_violations", json::array()}, {"foreign_output_types", json::array()}});
          out.messages.push_back(call);
          if (first && request.value("check_determinism", false)) {
            json same = at;
            same.update({{"type", "determinism"}, {"same", true}});
            out.messages.push_back(same);
          }
        } else if (kind == "reference") {
          json compare = at;
          compare.update({{"type", "compare"}, {"missing", false}, {"n_outputs", 1}, {"ref_n_outputs", 1},
                          {"outputs", {{{"index", 0}, {"shape", {5}}, {"ref_shape", {5}}, {"dtype", "float32"},
                                        {"ref_dtype", "float32"}, {"numel", 5}, {"n_over_tol", 0}, {"nan", 0},
                                        {"inf", 0}, {"ref_nan", 0}, {"ref_inf", 0}}}}});
          out.messages.push_back(compare);
        }
        first = false;
      }
    }
    out.messages.push_back({{"type", "done"}});
    if (kind == "reference") {
      std::lock_guard lock(journal_.mutex);
      ++journal_.finished_by_slot[slot_];
      journal_.changed.notify_all();
    }
    return out;
  }

 private:
  static std::string read_code(const json& request) {
    std::ifstream in(request["code_file"].get<std::string>(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Fails the test (never hangs it) if no other slot finishes a job within a minute.
  void wait_for_another_slot() {
    std::unique_lock lock(journal_.mutex);
    const bool other = journal_.changed.wait_for(lock, std::chrono::seconds(60), [&] {
      for (size_t s = 0; s < journal_.finished_by_slot.size(); ++s) {
        if (s != slot_ && journal_.finished_by_slot[s] > 0) return true;
      }
      return false;
    });
    EXPECT_TRUE(other) << "slot " << slot_ << "'s slow job held back every other slot";
  }

  size_t slot_;
  Journal& journal_;
};

class FakeSlots : public RunnerSlots {
 public:
  FakeSlots(size_t count, Journal& journal) {
    for (size_t s = 0; s < count; ++s) runners_.push_back(std::make_unique<FakeSlotRunner>(s, journal));
  }
  size_t size() const override { return runners_.size(); }
  JobRunner& slot(size_t i) override { return *runners_.at(i); }
  int gpu_of(size_t) const override { return 0; }
  const std::vector<int>& gpus() const override { return gpus_; }
  JobRunner* sanitizer_of(size_t) const override { return nullptr; }
  void resandbox(SandboxSettings&, const std::string&) override {}
  void ask_to_leave() override {}

 private:
  std::vector<int> gpus_{0};
  std::vector<std::unique_ptr<FakeSlotRunner>> runners_;
};

class RunSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_.write("suite/twice/task.toml", kTaskToml);
    scratch_.write("suite/twice/reference.py", "def reference(x):\n    return 2 * x\n");
    scratch_.write("suite/twice/golden.py", "def twice(x):\n    return 2 * x\n");
    options_.out = scratch_.path() / "out";
    options_.device = "cpu";
    options_.timing = false;
    options_.sandbox = false;
    options_.progress = false;
    options_.python = (scratch_.path() / "no-python-here").string();  // a Python started would fail
  }

  // One run on `slots` fake slots; the engine is warm with them, so no probe and no zygote.
  RunOutput run(const std::vector<Submission>& submissions, size_t slots, Journal& journal) {
    WarmEngine warm;
    warm.device = "cpu";
    warm.probe = json::object();
    warm.pool = std::make_unique<FakeSlots>(slots, journal);
    std::ostringstream log;
    return run_session(Suite::load(scratch_.path() / "suite"), submissions, options_, log, &warm);
  }

  static Submission submission(const std::string& id, const std::string& code) {
    return usable_submission("twice", "def twice(x):\n    return 2 * x  # " + code + "\n", id, id);
  }

  static std::vector<std::string> verdicts(const RunOutput& output) {
    std::vector<std::string> out;
    for (const auto& result : output.results) out.push_back(result.to_json()["verdict"].get<std::string>());
    return out;
  }

  ScratchDir scratch_;
  RunOptions options_;
};

TEST_F(RunSessionTest, ASlowJobOnOneSlotNeverHoldsBackTheOthers) {
  std::vector<Submission> submissions = {submission("slow", "SLOW")};
  for (int i = 0; i < 5; ++i) submissions.push_back(submission("s" + std::to_string(i), std::to_string(i)));
  Journal journal;
  const RunOutput output = run(submissions, 3, journal);
  EXPECT_EQ(verdicts(output), std::vector<std::string>(6, "pass"));
  std::multiset<std::string> evaluated;
  std::set<size_t> slots;
  for (const auto& [slot, code] : journal.candidates) evaluated.insert(code), slots.insert(slot);
  std::multiset<std::string> expected;
  for (const auto& s : submissions) expected.insert(s.code);
  EXPECT_EQ(evaluated, expected);  // each submission evaluated exactly once
  EXPECT_GE(slots.size(), 2u);
  EXPECT_EQ(output.summary["harness_errors"].size(), 0u);
}

TEST_F(RunSessionTest, ALostRunnerIsACrashOfThatSubmissionAlone) {
  Journal journal;
  const RunOutput output = run({submission("a", "1"), submission("lost", "LOSE"), submission("b", "2")}, 2, journal);
  EXPECT_EQ(verdicts(output), (std::vector<std::string>{"pass", "crash", "pass"}));
  EXPECT_EQ(journal.candidates.size(), 3u);
}

TEST_F(RunSessionTest, ARunInterruptedMidwayResumesWithOnlyTheUnjudged) {
  const std::vector<Submission> submissions = {submission("a", "1"), submission("b", "2"), submission("c", "3")};
  {
    RunInterruption interruption;
    Journal journal;
    journal.interrupt_at = "# 2";
    const RunOutput output = run(submissions, 1, journal);  // one slot: jobs run in line order
    EXPECT_TRUE(output.summary["interrupted"].get<bool>());
    EXPECT_EQ(verdicts(output), std::vector<std::string>{"pass"});  // only a was judged
    EXPECT_EQ(output.summary["harness_errors"].size(), 2u);         // b and c, never stored
  }
  // The same command again, the interruption gone: a is taken from the store, b and c run.
  Journal journal;
  const RunOutput output = run(submissions, 2, journal);
  EXPECT_EQ(verdicts(output), (std::vector<std::string>{"pass", "pass", "pass"}));
  EXPECT_EQ(output.summary["resumed"].get<size_t>(), 1u);
  std::vector<std::string> evaluated;
  for (const auto& [slot, code] : journal.candidates) evaluated.push_back(code);
  std::sort(evaluated.begin(), evaluated.end());
  EXPECT_EQ(evaluated, (std::vector<std::string>{submissions[1].code, submissions[2].code}));
}

}  // namespace
}  // namespace keval
