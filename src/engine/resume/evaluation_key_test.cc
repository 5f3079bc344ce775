#include "engine/resume/evaluation_key.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <unistd.h>

namespace keval {
namespace {

Task two_dtype_task() {
  Task task;
  task.name = "t";
  task.entry = "t";
  task.version = 3;
  task.dtypes = {"float32", "float16"};
  task.tolerance["float32"] = {1e-5, 1e-5, "r"};
  task.tolerance["float16"] = {1e-3, 1e-3, "r"};
  task.cases.push_back({"c", true, nlohmann::json{{"n", 4}}, {{"n", 4}}, {}});
  task.dir = "/nonexistent";
  return task;
}

const EvaluationContext kContext{"/suites/keval", "", false, ""};

std::string key_of(const std::function<void(Task&, RunSettings&, EvaluationContext&)>& change) {
  Task task = two_dtype_task();
  RunSettings settings;
  EvaluationContext context = kContext;
  change(task, settings, context);
  return evaluation_key("abc", task, settings, context);
}

TEST(EvaluationKeyTest, TheSameSettingsGiveTheSameKeyWhateverTheRunsSeeds) {
  const std::string first = key_of([](Task&, RunSettings& s, EvaluationContext&) { s.seed_base = 1; });
  const std::string again = key_of([](Task&, RunSettings& s, EvaluationContext&) { s.seed_base = 99; });
  EXPECT_EQ(first, again);
  EXPECT_EQ(first.size(), 64u);
}

TEST(EvaluationKeyTest, EverySettingAResultDependsOnChangesTheKey) {
  const std::string plain = key_of([](Task&, RunSettings&, EvaluationContext&) {});
  const std::vector<std::pair<std::string, std::function<void(Task&, RunSettings&, EvaluationContext&)>>> changes = {
      {"--seeds", [](Task&, RunSettings& s, EvaluationContext&) { s.seeds_per_case = 3; }},
      {"--no-timing", [](Task&, RunSettings& s, EvaluationContext&) { s.timing.enabled = false; }},
      {"--sanitize", [](Task&, RunSettings&, EvaluationContext& c) { c.sanitize = true; }},
      {"--baseline", [](Task&, RunSettings& s, EvaluationContext&) { s.baselines = {"golden", "eager"}; }},
      {"--min-own-share", [](Task&, RunSettings& s, EvaluationContext&) { s.min_own_gpu_share = 0.8; }},
      {"--golden-from", [](Task&, RunSettings&, EvaluationContext& c) { c.golden_record = "f00d"; }},
      {"--timeout", [](Task&, RunSettings& s, EvaluationContext&) { s.timeout = std::chrono::seconds(20); }},
      {"--device", [](Task&, RunSettings& s, EvaluationContext&) { s.device = "cuda"; }},
      {"gpu", [](Task&, RunSettings&, EvaluationContext& c) { c.gpu = "NVIDIA H200"; }},
      {"suite", [](Task&, RunSettings&, EvaluationContext& c) { c.suite = "/other/suite"; }},
      {"task version", [](Task& t, RunSettings&, EvaluationContext&) { t.version = 4; }},
      {"float16 tolerance", [](Task& t, RunSettings&, EvaluationContext&) { t.tolerance["float16"].atol = 1e-2; }},
      {"case tolerance", [](Task& t, RunSettings&, EvaluationContext&) { t.cases[0].tolerance["float16"] = {1e-2, 1e-3, "r"}; }},
      {"case shape", [](Task& t, RunSettings&, EvaluationContext&) { t.cases[0].params["n"] = 5; }},
      {"inplace", [](Task& t, RunSettings&, EvaluationContext&) { t.inplace = true; }},
      {"runner code", [](Task&, RunSettings&, EvaluationContext& c) { c.runner = "beef"; }},
      {"adapter", [](Task& t, RunSettings&, EvaluationContext& c) { t.adapter = "kernelbench"; c.adapters[t.adapter] = ""; }},
  };
  for (const auto& [name, change] : changes) EXPECT_NE(key_of(change), plain) << name;
  EXPECT_NE(evaluation_key("abd", two_dtype_task(), RunSettings{}, kContext),
            evaluation_key("abc", two_dtype_task(), RunSettings{}, kContext));
}

// keval mutate gives a task's jobs their own timeout: that task's keys change, no other's, and
// a timeout equal to the run's is the run's key.
TEST(EvaluationKeyTest, ATasksOwnTimeoutKeysThatTaskAlone) {
  const std::string plain = key_of([](Task&, RunSettings&, EvaluationContext&) {});
  EXPECT_NE(key_of([](Task&, RunSettings& s, EvaluationContext&) { s.task_timeouts["t"] = std::chrono::seconds(30); }),
            plain);
  EXPECT_EQ(key_of([](Task&, RunSettings& s, EvaluationContext&) { s.task_timeouts["other"] = std::chrono::seconds(30); }),
            plain);
  EXPECT_EQ(key_of([](Task&, RunSettings& s, EvaluationContext&) { s.task_timeouts["t"] = s.timeout; }), plain);
}

// A runner folder in a temporary directory: keval_runner, and keval_adapters with two peers.
class RunnerFolder {
 public:
  RunnerFolder() : root_(std::filesystem::temp_directory_path() / ("keval-runner-hash-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root_);
    write("keval_runner/guest/guest.py", "a = 1\n");
    write("keval_runner/protocol/request.schema.json", "{}\n");
    write("keval_runner/notes.txt", "not code\n");
    write("keval_adapters/__main__.py", "dispatch = 1\n");
    write("keval_adapters/registry.py", "PACKAGES = {}\n");
    write("keval_adapters/common/task_toml.py", "shared = 1\n");
    write("keval_adapters/vendor/tomli_w.py", "vendored = 1\n");
    write("keval_adapters/kernelbench/tasks.py", "kb = 1\n");
    write("keval_adapters/tritonbench/tasks.py", "tb = 1\n");
  }
  ~RunnerFolder() { std::filesystem::remove_all(root_); }

  void write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
  }
  const std::filesystem::path& root() const { return root_; }

  // The keys of a native task and of a task of each peer, as a run over this folder forms them.
  std::vector<std::string> keys() const {
    Task native = two_dtype_task(), kernelbench = two_dtype_task(), tritonbench = two_dtype_task();
    kernelbench.adapter = "kernelbench";
    tritonbench.adapter = "tritonbench";
    EvaluationContext context = kContext;
    context.runner = runner_code_hash(root_);
    context.adapters = adapter_code_hashes(root_, {native, kernelbench, tritonbench});
    std::vector<std::string> keys;
    for (const Task* task : {&native, &kernelbench, &tritonbench}) {
      keys.push_back(evaluation_key("abc", *task, RunSettings{}, context));
    }
    return keys;
  }

 private:
  std::filesystem::path root_;
};

TEST(EvaluationKeyTest, RunnerCodeHashFollowsThePythonAndSchemasOfTheRunnerPackageOnly) {
  RunnerFolder folder;
  const std::string first = runner_code_hash(folder.root());
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(runner_code_hash(folder.root()), first);
  folder.write("keval_runner/notes.txt", "still not code\n");
  folder.write("keval_adapters/kernelbench/tasks.py", "kb = 2\n");
  folder.write("keval_adapters/common/task_toml.py", "shared = 2\n");
  EXPECT_EQ(runner_code_hash(folder.root()), first);
  folder.write("keval_runner/protocol/request.schema.json", "{\"type\": \"object\"}\n");
  const std::string schema_changed = runner_code_hash(folder.root());
  EXPECT_NE(schema_changed, first);
  folder.write("keval_runner/guest/guest.py", "a = 2\n");
  EXPECT_NE(runner_code_hash(folder.root()), schema_changed);
  EXPECT_EQ(runner_code_hash(folder.root() / "missing"), "");
}

TEST(EvaluationKeyTest, AdapterCodeHashFollowsItsPeerAndWhatEveryPeerShares) {
  RunnerFolder folder;
  const std::string first = adapter_code_hash(folder.root(), "kernelbench");
  EXPECT_EQ(first.size(), 64u);
  EXPECT_NE(adapter_code_hash(folder.root(), "tritonbench"), first);
  folder.write("keval_adapters/tritonbench/tasks.py", "tb = 2\n");
  folder.write("keval_adapters/registry.py", "PACKAGES = {1: 2}\n");
  folder.write("keval_runner/guest/guest.py", "a = 2\n");
  EXPECT_EQ(adapter_code_hash(folder.root(), "kernelbench"), first);
  for (const std::string shared : {"keval_adapters/common/task_toml.py", "keval_adapters/vendor/tomli_w.py",
                                   "keval_adapters/kernelbench/tasks.py"}) {
    const std::string before = adapter_code_hash(folder.root(), "kernelbench");
    folder.write(shared, "changed = 1\n");
    EXPECT_NE(adapter_code_hash(folder.root(), "kernelbench"), before) << shared;
  }
  EXPECT_EQ(adapter_code_hash(folder.root(), "missing"), "");
  EXPECT_TRUE(adapter_code_hashes(folder.root(), {two_dtype_task()}).empty());
}

TEST(EvaluationKeyTest, EditingOneAdapterChangesOnlyThatPeersKeys) {
  RunnerFolder folder;
  const std::vector<std::string> first = folder.keys();  // native, kernelbench, tritonbench
  EXPECT_NE(first[0], first[1]);
  EXPECT_NE(first[1], first[2]);
  folder.write("keval_adapters/kernelbench/tasks.py", "kb = 2  # a help text edited\n");
  const std::vector<std::string> kernelbench_edited = folder.keys();
  EXPECT_EQ(kernelbench_edited[0], first[0]);
  EXPECT_NE(kernelbench_edited[1], first[1]);
  EXPECT_EQ(kernelbench_edited[2], first[2]);
  folder.write("keval_adapters/__main__.py", "dispatch = 2\n");  // the dispatch: no task's code
  EXPECT_EQ(folder.keys(), kernelbench_edited);
  folder.write("keval_adapters/common/task_toml.py", "shared = 2\n");
  const std::vector<std::string> common_edited = folder.keys();
  EXPECT_EQ(common_edited[0], first[0]);
  EXPECT_NE(common_edited[1], kernelbench_edited[1]);
  EXPECT_NE(common_edited[2], kernelbench_edited[2]);
}

TEST(EvaluationKeyTest, EditingTheRunnersCodeChangesEveryKey) {
  RunnerFolder folder;
  const std::vector<std::string> first = folder.keys();
  folder.write("keval_runner/guest/guest.py", "a = 2\n");
  const std::vector<std::string> edited = folder.keys();
  for (size_t i = 0; i < first.size(); ++i) EXPECT_NE(edited[i], first[i]) << i;
}

TEST(EvaluationKeyTest, ATaskWhoseAdapterTheContextLacksIsABrokenInvariant) {
  Task task = two_dtype_task();
  task.adapter = "kernelbench";
  EXPECT_THROW(evaluation_key("abc", task, RunSettings{}, kContext), std::logic_error);
}

TEST(EvaluationKeyTest, HeldOutCasesKeyTheirCountAndRangesNotTheirDraw) {
  auto with_held_out = [](Task& t) {
    HeldOutParam n;
    n.name = "n";
    n.kind = HeldOutParam::Kind::kRange;
    n.lo = 1, n.hi = 999;
    t.held_out.params = {n};
  };
  const std::string first = key_of([&](Task& t, RunSettings& s, EvaluationContext&) { with_held_out(t); s.seed_base = 1; });
  const std::string again = key_of([&](Task& t, RunSettings& s, EvaluationContext&) { with_held_out(t); s.seed_base = 2; });
  EXPECT_EQ(first, again);  // other shapes each run, as other seeds: resume reuses the result
  EXPECT_NE(first, key_of([](Task&, RunSettings&, EvaluationContext&) {}));
  EXPECT_NE(first, key_of([&](Task& t, RunSettings& s, EvaluationContext&) { with_held_out(t); s.held_out_cases = 3; }));
  EXPECT_NE(first, key_of([&](Task& t, RunSettings&, EvaluationContext&) {
    with_held_out(t);
    t.held_out.params[0].hi = 500;
  }));
}

}  // namespace
}  // namespace keval
