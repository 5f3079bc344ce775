#include "engine/evaluation_key.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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
  };
  for (const auto& [name, change] : changes) EXPECT_NE(key_of(change), plain) << name;
  EXPECT_NE(evaluation_key("abd", two_dtype_task(), RunSettings{}, kContext),
            evaluation_key("abc", two_dtype_task(), RunSettings{}, kContext));
}

TEST(EvaluationKeyTest, RunnerCodeHashFollowsEveryPythonFileOfThePackage) {
  const auto root = std::filesystem::temp_directory_path() / ("keval-runner-hash-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "keval_runner" / "adapters");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(root / "keval_runner" / name) << text;
  };
  write("guest.py", "a = 1\n");
  write("adapters/peer.py", "b = 2\n");
  write("notes.txt", "not code\n");
  const std::string first = runner_code_hash(root);
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(runner_code_hash(root), first);
  write("notes.txt", "still not code\n");
  EXPECT_EQ(runner_code_hash(root), first);
  write("adapters/peer.py", "b = 3\n");
  EXPECT_NE(runner_code_hash(root), first);
  EXPECT_EQ(runner_code_hash(root / "missing"), "");
  std::filesystem::remove_all(root);
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
