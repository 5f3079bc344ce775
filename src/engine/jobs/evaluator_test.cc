#include "engine/jobs/evaluator.h"

#include <gtest/gtest.h>

#include <fstream>

#include "judge/judge.h"

namespace keval {
namespace {

using nlohmann::json;

// Answers each job kind from a script and records what was asked and whether the device gate was held.
class FakeRunner : public JobRunner {
 public:
  explicit FakeRunner(DeviceGate* device_gate) : device_gate_(device_gate) {}
  using JobRunner::run;
  JobOutcome run(json request, std::chrono::milliseconds, const MessageHook& on_message) override {
    const std::string kind = request["kind"];
    kinds.push_back(kind);
    if (kind == "timing" && timing_out_of_memory_runs > 0) {
      --timing_out_of_memory_runs;
      JobOutcome oom;
      oom.done = true;
      oom.messages.push_back({{"type", "error"}, {"stage", "baseline"}, {"error_kind", "OutOfMemoryError"},
                              {"out_of_memory", true}});
      return oom;
    }
    if (kind == "timing" && !request.value("device_gate", false)) {
      timing_alone_without_gate = others_kept_out() && !request.contains("device_hold");
    } else if (kind == "timing") {
      // Set-up shares the device; only the measurement has it alone, once asked for.
      shared_before_measuring = held();
      gated = request.value("device_gate", false);
      if (on_message) on_message({{"type", "device_alone"}});
      const auto signal = std::filesystem::path(request["work_dir"].get<std::string>()) / "device-alone-0";
      alone_during_timing = others_kept_out() && std::filesystem::exists(signal);
      if (on_message) on_message({{"type", "device_shared"}});
      shared_after_measuring = held();
    } else {
      shared_during_correctness = held();  // held shared: not free to have alone
    }
    JobOutcome out;
    if (kind == "candidate" && out_of_memory_runs > 0) {
      --out_of_memory_runs;
      candidate_hold_files.push_back(request.value("device_hold", ""));
      candidate_alone.push_back(false);
      out.exit_code = 3;  // the warden's own guard bands did not fit
      out.messages.push_back({{"type", "error"}, {"stage", "runner"}, {"error_kind", "OutOfMemoryError"},
                              {"message", "CUDA out of memory."}, {"out_of_memory", true}});
      return out;
    }
    if (kind == "candidate" && guest_out_of_memory_text) {
      // the submission raised torch's out-of-memory error itself, and printed it on stderr
      out.done = true;
      out.exit_code = 0;
      out.stderr_tail = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 GiB";
      out.messages.push_back({{"type", "error"}, {"stage", "call"}, {"error_kind", "OutOfMemoryError"},
                              {"error_class", "OutOfMemoryError"}, {"case", "c"}, {"dtype", "float32"}, {"seed", 1},
                              {"message", "CUDA out of memory. Tried to allocate 6.00 GiB"}});
      out.messages.push_back({{"type", "call"}, {"case", "c"}, {"dtype", "float32"}, {"seed", 1}, {"ok", false},
                              {"kernels", json::array()}, {"other_kernels", json::array()}, {"inputs_mutated", false},
                              {"output_is_input", false}, {"guard_violations", json::array()},
                              {"foreign_output_types", json::array()}});
      out.messages.push_back({{"type", "done"}});
      return out;
    }
    if (kind == "candidate") {
      candidate_hold_files.push_back(request.value("device_hold", ""));
      candidate_alone.push_back(others_kept_out());
    }
    out.done = true;
    out.exit_code = 0;
    // every fact the runner always sends: the judge fails closed on a missing one
    if (kind == "candidate") {
      out.messages.push_back({{"type", "call"}, {"case", "c"}, {"dtype", "float32"}, {"seed", 1},
                              {"ok", true}, {"kernels", {"k"}}, {"other_kernels", json::array()},
                              {"inputs_mutated", false}, {"output_is_input", false},
                              {"guard_violations", json::array()}, {"foreign_output_types", json::array()}});
      out.messages.push_back({{"type", "determinism"}, {"case", "c"}, {"dtype", "float32"}, {"seed", 1},
                              {"same", true}});
    } else if (kind == "reference") {
      out.messages.push_back({{"type", "compare"}, {"case", "c"}, {"dtype", "float32"}, {"seed", 1},
                              {"missing", false}, {"n_outputs", 1}, {"ref_n_outputs", 1},
                              {"outputs", {{{"index", 0}, {"shape", {4}}, {"ref_shape", {4}},
                                            {"dtype", "float32"}, {"ref_dtype", "float32"}, {"numel", 4},
                                            {"n_over_tol", over_tolerance}, {"nan", 0}, {"inf", 0},
                                            {"ref_nan", 0}, {"ref_inf", 0}}}}});
    } else if (kind == "timing") {
      out.messages.push_back({{"type", "timing"}, {"who", "candidate"}, {"case", "c"},
                              {"dtype", "float32"}, {"seed", 1}, {"method", "wall_clock"},
                              {"samples_ms", {1.0}}, {"l2_persisting_bytes", 0},
                              {"timed_output_checks", 0}, {"timed_output_mismatches", 0}});
    }
    out.messages.push_back({{"type", "done"}});
    return out;
  }
  std::vector<std::string> kinds;
  bool gated = false;
  bool shared_before_measuring = false;
  bool shared_after_measuring = false;
  bool alone_during_timing = false;
  bool shared_during_correctness = false;
  long long over_tolerance = 0;
  int out_of_memory_runs = 0;                   // candidate runs that fail out of GPU memory first
  int timing_out_of_memory_runs = 0;            // the same for timing runs
  bool guest_out_of_memory_text = false;        // the submission's call raises "CUDA out of memory"
  bool timing_alone_without_gate = false;       // a timing run held the device alone from its start
  std::vector<std::string> candidate_hold_files;  // device_hold of each candidate run
  std::vector<bool> candidate_alone;              // whether it ran with the device alone

 private:
  // Whether someone holds the device gate at all (it is not free to have alone).
  bool held() {
    if (!device_gate_->try_lock()) return true;
    device_gate_->unlock();
    return false;
  }
  // Whether the device is held alone (no new share could start).
  bool others_kept_out() {
    if (!device_gate_->try_lock_shared()) return true;
    device_gate_->unlock_shared();
    return false;
  }

  DeviceGate* device_gate_;
};

// The device gate is free again: nobody holds or waits for it.
bool released(DeviceGate& device_gate) {
  if (!device_gate.try_lock()) return false;
  device_gate.unlock();
  return true;
}

Task tiny_task() {
  Task task;
  task.name = "t";
  task.entry = "t";
  task.dtypes = {"float32"};
  task.tolerance["float32"] = {1e-5, 1e-5, "r"};
  task.cases.push_back({"c", true, json{{"n", 4}}, {{"n", 4}}, {}});
  task.dir = "/nonexistent";
  return task;
}

class EvaluatorTest : public ::testing::Test {
 protected:
  JobDirs dirs{std::filesystem::temp_directory_path() / ("keval_eval_" + std::to_string(::getpid()))};
  void TearDown() override { std::filesystem::remove_all(dirs.root); }
};

TEST_F(EvaluatorTest, TimesPassingSubmissionUnderTheDeviceGate) {
  DeviceGate device_gate;
  FakeRunner runner(&device_gate);
  RunSettings settings;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), settings, dirs, &device_gate);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "reference", "timing"}));
  EXPECT_TRUE(runner.gated);
  EXPECT_TRUE(runner.shared_before_measuring);
  EXPECT_TRUE(runner.alone_during_timing);
  EXPECT_TRUE(runner.shared_after_measuring);
  EXPECT_TRUE(runner.shared_during_correctness);
  ASSERT_TRUE(facts.timing.has_value());
  EXPECT_TRUE(released(device_gate));  // every hold was released at the end of the job
}

TEST_F(EvaluatorTest, AJobOutOfGpuMemoryRunsOnceMoreWithTheDeviceAlone) {
  DeviceGate device_gate;
  device_gate.set_hold_file(dirs.root / "device-hold-0");
  FakeRunner runner(&device_gate);
  runner.out_of_memory_runs = 1;
  EvaluationGate evaluation_gate;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate, nullptr, &evaluation_gate);
  EXPECT_EQ(evaluation_gate.out_of_memory(), 1);  // fewer evaluations at once on this GPU from now on
  EXPECT_EQ(evaluation_gate.limit(), 1);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "candidate", "reference", "timing"}));
  EXPECT_EQ(runner.candidate_alone, (std::vector<bool>{false, true}));
  // the second run never pauses for the hold its own device gate keeps
  EXPECT_FALSE(runner.candidate_hold_files[0].empty());
  EXPECT_TRUE(runner.candidate_hold_files[1].empty());
  EXPECT_TRUE(facts.candidate.retried_alone);
  EXPECT_EQ(judge(facts, JudgePolicy{}).verdict, Verdict::kPass);
  EXPECT_TRUE(released(device_gate));
}

TEST_F(EvaluatorTest, ATimingJobOutOfGpuMemoryRunsOnceMoreWithTheDeviceAlone) {
  DeviceGate device_gate;
  device_gate.set_hold_file(dirs.root / "device-hold-0");
  FakeRunner runner(&device_gate);
  runner.timing_out_of_memory_runs = 1;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "reference", "timing", "timing"}));
  EXPECT_TRUE(runner.timing_alone_without_gate);
  ASSERT_TRUE(facts.timing.has_value());
  EXPECT_TRUE(facts.timing->retried_alone);
  EXPECT_TRUE(released(device_gate));
}

TEST_F(EvaluatorTest, OutOfMemoryTwiceKeepsTheSecondRunsOutcome) {
  DeviceGate device_gate;
  FakeRunner runner(&device_gate);
  runner.out_of_memory_runs = 2;
  EvaluationGate evaluation_gate;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate, nullptr, &evaluation_gate);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "candidate"}));
  EXPECT_EQ(evaluation_gate.limit(), 0);  // out of memory alone too: the other slots were not the cause
  EXPECT_EQ(evaluation_gate.out_of_memory(), 0);
  EXPECT_TRUE(facts.candidate.retried_alone);
  EXPECT_NE(judge(facts, JudgePolicy{}).verdict, Verdict::kPass);
}

TEST_F(EvaluatorTest, ASubmissionRaisingOutOfMemoryTextIsNeitherRetriedNorShrinksTheSlots) {
  DeviceGate device_gate;
  device_gate.set_hold_file(dirs.root / "device-hold-0");
  FakeRunner runner(&device_gate);
  runner.guest_out_of_memory_text = true;
  EvaluationGate evaluation_gate;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate, nullptr, &evaluation_gate);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate"}));  // no run alone
  EXPECT_FALSE(facts.candidate.retried_alone);
  EXPECT_EQ(evaluation_gate.out_of_memory(), 0);
  EXPECT_EQ(evaluation_gate.limit(), 0);  // every slot still runs
  EXPECT_EQ(judge(facts, JudgePolicy{}).verdict, Verdict::kRuntimeError);
  EXPECT_TRUE(released(device_gate));
}

TEST_F(EvaluatorTest, SpendsNoTimingOnWrongSubmissions) {
  DeviceGate device_gate;
  FakeRunner runner(&device_gate);
  runner.over_tolerance = 3;
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate);
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "reference"}));
  EXPECT_FALSE(facts.timing.has_value());
}

TEST_F(EvaluatorTest, RequestsCarryCasesSeedsAndTolerances) {
  RunSettings settings;
  settings.seed_base = 42;
  json request = candidate_request(tiny_task(), settings, dirs.code_file(), dirs);
  ASSERT_EQ(request["cases"].size(), 1u);
  EXPECT_EQ(request["cases"][0]["seeds"].size(), 2u);
  EXPECT_NE(request["cases"][0]["seeds"][0], request["cases"][0]["seeds"][1]);
  EXPECT_EQ(request["cases"][0]["atol"], 1e-5);
  settings.seed_base = 43;
  EXPECT_NE(candidate_request(tiny_task(), settings, dirs.code_file(), dirs)["cases"][0]["seeds"],
            request["cases"][0]["seeds"]);
  json timing = timing_request(tiny_task(), settings, dirs.code_file(), dirs);
  EXPECT_EQ(timing["kind"], "timing");
  EXPECT_EQ(timing["baselines"][0]["name"], "golden");
}

TEST_F(EvaluatorTest, HeldOutCasesAreCheckedByBothJobsAndNeverTimed) {
  Task task = tiny_task();
  HeldOutParam n;
  n.name = "n";
  n.kind = HeldOutParam::Kind::kRange;
  n.lo = 1, n.hi = 999;
  task.held_out.params = {n};
  for (const std::string device : {"cpu", "cuda"}) {
    RunSettings settings;
    settings.device = device;
    settings.seed_base = 42;
    json candidate = candidate_request(task, settings, dirs.code_file(), dirs);
    ASSERT_EQ(candidate["cases"].size(), 3u) << candidate["cases"].dump();
    const json held_out = candidate["cases"][1];
    EXPECT_EQ(held_out["name"], "held_out_1 n=" + held_out["params"]["n"].dump());
    EXPECT_EQ(held_out["seeds"].size(), 2u);
    EXPECT_EQ(reference_request(task, settings, dirs)["cases"], candidate["cases"]);  // the same draw
    json timing = timing_request(task, settings, dirs.code_file(), dirs);
    ASSERT_EQ(timing["cases"].size(), 1u);
    EXPECT_EQ(timing["cases"][0]["name"], "c");  // the timed case is among the checked ones
    settings.held_out_cases = 0;
    EXPECT_EQ(candidate_request(task, settings, dirs.code_file(), dirs)["cases"].size(), 1u);
  }
  RunSettings quick;
  quick.quick_correctness = true;  // keval sweep's variants of a golden
  EXPECT_EQ(candidate_request(task, quick, dirs.code_file(), dirs)["cases"].size(), 1u);
}

TEST_F(EvaluatorTest, TimingJobProfilesKernelsOnlyWhereATritonKernelIsRequired) {
  RunSettings settings;
  settings.device = "cuda";
  Task task = tiny_task();
  json timing = timing_request(task, settings, dirs.code_file(), dirs);
  EXPECT_TRUE(timing["checks"]["profile_kernels"].get<bool>());
  EXPECT_EQ(timing["profile_screen_share"], JudgePolicy{}.min_own_gpu_share);
  settings.min_own_gpu_share = 0.8;  // --min-own-share: the screen and the judge use it alike
  EXPECT_EQ(timing_request(task, settings, dirs.code_file(), dirs)["profile_screen_share"], 0.8);
  EXPECT_EQ(judge_policy(task, settings).min_own_gpu_share, 0.8);
  task.require_kernel = false;  // any code may do the work: library_fallback never applies
  EXPECT_FALSE(timing_request(task, settings, dirs.code_file(), dirs)["checks"]["profile_kernels"].get<bool>());
}

TEST_F(EvaluatorTest, ReferenceJobWarmsTorchCompileOnTheTimedCasesOnlyWhenItIsABaseline) {
  RunSettings settings;
  EXPECT_FALSE(reference_request(tiny_task(), settings, dirs).contains("warm_compile"));
  settings.baselines = {"eager", "compile"};
  json request = reference_request(tiny_task(), settings, dirs);
  ASSERT_TRUE(request.contains("warm_compile")) << request.dump();
  EXPECT_EQ(request["warm_compile"], json::parse(R"([{"name": "c", "dtype": "float32"}])"));
  settings.timing.enabled = false;
  EXPECT_FALSE(reference_request(tiny_task(), settings, dirs).contains("warm_compile"));
}

TEST_F(EvaluatorTest, Float32CasesAskForTheLowerPrecisionsTheTasksPrecisionRulesOut) {
  RunSettings settings;
  Task task = tiny_task();
  task.dtypes = {"float32", "float16"};
  task.tolerance["float16"] = {1e-3, 1e-3, "r"};
  json cases = reference_request(task, settings, dirs)["cases"];
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]["lower_precisions"], json::parse(R"(["tf32", "float16", "bfloat16"])"));
  EXPECT_FALSE(cases[1].contains("lower_precisions"));  // float16
  task.precision = "tf32";
  EXPECT_EQ(reference_request(task, settings, dirs)["cases"][0]["lower_precisions"],
            json::parse(R"(["tf32_rz", "bfloat16"])"));
  EXPECT_EQ(judge_policy(task, settings).precision, "tf32");
  task.precision = "any";
  EXPECT_FALSE(reference_request(task, settings, dirs)["cases"][0].contains("lower_precisions"));
}

TEST_F(EvaluatorTest, ReferenceJobGuardsItsSecondCallOnlyWhenTheTaskChecksReferenceDefinedness) {
  RunSettings settings;
  Task task = tiny_task();
  EXPECT_FALSE(reference_request(task, settings, dirs).contains("reference_guard_bytes"));
  task.check_reference_defined = true;
  json request = reference_request(task, settings, dirs);
  EXPECT_TRUE(request["check_reference_defined"].get<bool>());
  EXPECT_EQ(request["reference_guard_bytes"], settings.checks.guard_bytes);
}

TEST_F(EvaluatorTest, SanitizerRunsPassingSubmissionsSmallCasesUnsandboxedBeforeTiming) {
  DeviceGate device_gate;
  FakeRunner runner(&device_gate), sanitizer(&device_gate);
  Task task = tiny_task();
  task.cases.push_back({"big", false, json{{"n", 1 << 20}}, {{"n", 1 << 20}}, {}});
  EvaluationFacts facts = evaluate_submission(runner, task, RunSettings{}, dirs, &device_gate, &sanitizer);
  EXPECT_EQ(sanitizer.kinds, (std::vector<std::string>{"candidate"}));
  ASSERT_TRUE(facts.sanitizer.has_value());
  json request = sanitizer_request(task, RunSettings{}, dirs.code_file(), dirs);
  ASSERT_EQ(request["cases"].size(), 1u);
  EXPECT_EQ(request["cases"][0]["name"], "c");
  EXPECT_EQ(request["cases"][0]["seeds"].size(), 1u);
  EXPECT_EQ(request["sandbox"]["enabled"], false);
  EXPECT_EQ(request["timing"]["enabled"], false);

  FakeRunner wrong(&device_gate), unused(&device_gate);
  wrong.over_tolerance = 1;
  evaluate_submission(wrong, task, RunSettings{}, dirs, &device_gate, &unused);
  EXPECT_TRUE(unused.kinds.empty());  // a wrong submission is not worth a memcheck run
}

}  // namespace
}  // namespace keval

namespace keval {
namespace {

TEST_F(EvaluatorTest, JudgePolicyExpectsTheChecksTheJobsWereAskedFor) {
  Task task = tiny_task();
  task.cases.push_back({"big", false, json{{"n", 1 << 20}}, {{"n", 1 << 20}}, {}});
  RunSettings cuda;
  cuda.device = "cuda";
  JudgePolicy policy = judge_policy(task, cuda);
  EXPECT_TRUE(policy.check_determinism);
  EXPECT_TRUE(policy.profile_kernels);
  EXPECT_EQ(policy.timed_cases, (std::vector<std::pair<std::string, std::string>>{{"big", "float32"}}));
  task.require_kernel = false;  // the timing job is not asked to profile then
  EXPECT_FALSE(judge_policy(task, cuda).profile_kernels);
  RunSettings cpu;  // the interpreter: small cases timed, nothing profiled
  policy = judge_policy(tiny_task(), cpu);
  EXPECT_FALSE(policy.profile_kernels);
  EXPECT_EQ(policy.timed_cases, (std::vector<std::pair<std::string, std::string>>{{"c", "float32"}}));
}

TEST_F(EvaluatorTest, CodeReachingTheRunnerGetsNoSanitizerOrTimingJob) {
  DeviceGate device_gate;
  FakeRunner runner(&device_gate), sanitizer(&device_gate);
  EvaluationFacts facts = evaluate_submission(runner, tiny_task(), RunSettings{}, dirs, &device_gate, &sanitizer,
                                              nullptr, {{"sys._getframe", "frame walking", 3, true}});
  EXPECT_EQ(runner.kinds, (std::vector<std::string>{"candidate", "reference"}));
  EXPECT_TRUE(sanitizer.kinds.empty());
  EXPECT_EQ(judge(facts, judge_policy(tiny_task(), RunSettings{})).verdict, Verdict::kTampering);
}

}  // namespace
}  // namespace keval
