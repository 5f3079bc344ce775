#include "engine/jobs/job_plan.h"

#include <algorithm>
#include <functional>

#include "judge/judge.h"
#include "judge/precision_check.h"

namespace keval {

void JobDirs::create() const {
  for (const auto& dir : {root, outputs(), candidate(), reference(), timing()}) {
    std::filesystem::create_directories(dir);
  }
}

nlohmann::json plan_cases(const Task& task, const RunSettings& settings, int seeds_per_case,
                          bool benchmark_only) {
  const bool has_benchmark = std::any_of(task.cases.begin(), task.cases.end(),
                                         [](const TaskCase& c) { return !c.small; });
  nlohmann::json cases = nlohmann::json::array();
  auto add = [&](const TaskCase& c) {
    for (const auto& dtype : task.dtypes_of(c)) {
      nlohmann::json seeds = nlohmann::json::array();
      // Seeds differ per case and dtype, and per run through seed_base.
      uint64_t mix = settings.seed_base ^ std::hash<std::string>{}(task.name + "/" + c.name + "/" + dtype);
      for (int i = 0; i < seeds_per_case; ++i) {
        seeds.push_back(static_cast<int64_t>((mix + 0x9E3779B97F4A7C15ULL * (i + 1)) % 2147483647ULL));
      }
      const Tolerance& tolerance = task.tolerance_of(c, dtype);
      cases.push_back({{"name", c.name}, {"params", c.params}, {"dtype", dtype},
                       {"seeds", seeds}, {"atol", tolerance.atol}, {"rtol", tolerance.rtol}});
      // the reference job re-runs the reference in these, for the precision policy
      const auto lower = measured_precisions(task.precision, dtype);
      if (!lower.empty()) cases.back()["lower_precisions"] = lower;
    }
  };
  for (const auto& c : task.cases) {
    if (settings.device == "cpu" && !c.small) continue;
    if (settings.device == "cuda" && benchmark_only && has_benchmark && c.small) continue;
    add(c);
  }
  // Held-out shapes are checked, never timed: drawn from the run's secret seed like the inputs.
  if (!benchmark_only) {
    for (const auto& c : draw_held_out(task, settings.seed_base, settings.held_out_cases)) add(c);
  }
  return cases;
}

// The cases correctness is judged on: every case with the run's seeds, or in the sweep's quick
// mode the small ones (all, if the task has none) with one seed each and no held-out shapes (a
// variant of a golden differs from it only in tuning constants).
static nlohmann::json correctness_cases(const Task& task, const RunSettings& settings) {
  if (!settings.quick_correctness) return plan_cases(task, settings, settings.seeds_per_case);
  Task small = task;
  std::erase_if(small.cases, [](const TaskCase& c) { return !c.small; });
  if (small.cases.empty()) small.cases = task.cases;
  RunSettings quick = settings;
  quick.held_out_cases = 0;
  return plan_cases(small, quick, 1);
}

static nlohmann::json base_request(const std::string& kind, const Task& task,
                                   const RunSettings& settings, const JobDirs& dirs,
                                   const std::filesystem::path& work_dir) {
  return {{"op", "run"},
          {"kind", kind},
          {"device", settings.device},
          {"gpu", settings.gpu},
          {"task_dir", std::filesystem::absolute(task.dir).string()},
          {"entry", task.entry},
          {"outputs_dir", std::filesystem::absolute(dirs.outputs()).string()},
          {"work_dir", std::filesystem::absolute(work_dir).string()},
          {"inplace", task.inplace},
          {"shared_inputs", task.shared_inputs},
          {"inputs_on_device", task.inputs_on_device},
          {"check_determinism", false},
          {"timing", TimingSettings{false}.to_json()}};
}

nlohmann::json candidate_request(const Task& task, const RunSettings& settings,
                                 const std::filesystem::path& code_file, const JobDirs& dirs) {
  auto request = base_request("candidate", task, settings, dirs, dirs.candidate());
  request["code_file"] = std::filesystem::absolute(code_file).string();
  request["cases"] = correctness_cases(task, settings);
  request["check_determinism"] = settings.check_determinism;
  // a re-run that differs is kept, so the reference job can tell whether it differs only
  // where the reference itself is undefined
  request["save_rerun_outputs"] = task.check_reference_defined;
  request["checks"] = settings.checks.to_json(settings.device);
  request["checks"]["profile_kernels"] = false;  // the timing job profiles
  return request;
}

nlohmann::json sanitizer_request(const Task& task, const RunSettings& settings,
                                 const std::filesystem::path& code_file, const JobDirs& dirs) {
  Task small = task;
  std::erase_if(small.cases, [](const TaskCase& c) { return !c.small; });
  if (small.cases.empty()) small.cases = task.cases;
  const auto work_dir = dirs.root / "sanitizer";
  auto request = base_request("candidate", small, settings, dirs, work_dir);
  request["outputs_dir"] = std::filesystem::absolute(work_dir / "outputs").string();
  request["code_file"] = std::filesystem::absolute(code_file).string();
  request["cases"] = plan_cases(small, settings, 1);
  request["checks"] = settings.checks.to_json(settings.device);
  request["checks"]["profile_kernels"] = false;
  // compute-sanitizer attaches through the environment and /tmp, which the sandbox scrubs
  // and replaces: this job runs unconfined (docs/trust.md).
  request["sandbox"] = {{"enabled", false}};
  return request;
}

nlohmann::json reference_request(const Task& task, const RunSettings& settings,
                                 const JobDirs& dirs) {
  auto request = base_request("reference", task, settings, dirs, dirs.reference());
  request["cases"] = correctness_cases(task, settings);
  request["check_reference_defined"] = task.check_reference_defined;
  // the second call's inputs sit between NaN guard bands, as the candidate's do: elements
  // computed from reads past an input's end change, so they are not judged either
  if (task.check_reference_defined) request["reference_guard_bytes"] = settings.checks.guard_bytes;
  const auto& baselines = settings.baselines;
  if (settings.timing.enabled && std::find(baselines.begin(), baselines.end(), "compile") != baselines.end()) {
    // torch.compile's compile, here (sharing the GPU) rather than in the timing job (alone on it)
    nlohmann::json timed = nlohmann::json::array();
    for (const auto& planned : timed_cases(task, settings)) {
      timed.push_back({{"name", planned["name"]}, {"dtype", planned["dtype"]}});
    }
    request["warm_compile"] = timed;
  }
  return request;
}

nlohmann::json timed_cases(const Task& task, const RunSettings& settings) {
  nlohmann::json cases = plan_cases(task, settings, settings.seeds_per_case, /*benchmark_only=*/true);
  if (!settings.time_largest_case_only || cases.empty()) return cases;
  nlohmann::json largest;
  double most = -1;
  for (const auto& planned : cases) {
    if (planned["dtype"] != task.dtypes.front()) continue;
    for (const auto& c : task.cases) {
      if (c.name != planned["name"]) continue;
      double bytes = case_bytes(task, c, task.dtypes.front());
      if (bytes > most) most = bytes, largest = planned;
    }
  }
  return largest.is_null() ? cases : nlohmann::json::array({largest});
}

nlohmann::json timing_request(const Task& task, const RunSettings& settings,
                              const std::filesystem::path& code_file, const JobDirs& dirs) {
  auto request = base_request("timing", task, settings, dirs, dirs.timing());
  request["code_file"] = std::filesystem::absolute(code_file).string();
  request["cases"] = timed_cases(task, settings);
  request["timing"] = settings.timing.to_json();
  request["checks"] = settings.checks.to_json(settings.device);
  request["checks"]["guard_bytes"] = 0;  // guards were checked on every correctness call
  // The kernel profile only serves library_fallback, which any-code tasks never get; a cheap
  // launch-event screen settles it when its (lower-bound) share reaches the judge's threshold.
  if (!task.require_kernel) request["checks"]["profile_kernels"] = false;
  request["profile_screen_share"] = settings.min_own_gpu_share;
  nlohmann::json baselines = nlohmann::json::array();
  for (const auto& name : settings.baselines) {
    nlohmann::json baseline = {{"name", name}};
    if (name == "golden") baseline["code_file"] = std::filesystem::absolute(task.golden_path()).string();
    baselines.push_back(baseline);
  }
  request["baselines"] = baselines;
  return request;
}

nlohmann::json sweep_request(const Task& task, const RunSettings& settings,
                             const std::vector<std::filesystem::path>& code_files, size_t first_index,
                             const std::filesystem::path& work_dir) {
  JobDirs dirs{work_dir};
  auto request = base_request("sweep", task, settings, dirs, work_dir);
  request["cases"] = correctness_cases(task, settings);
  request["timed"] = settings.timing.enabled ? timed_cases(task, settings) : nlohmann::json::array();
  request["timing"] = settings.timing.to_json();
  nlohmann::json variants = nlohmann::json::array();
  for (size_t k = 0; k < code_files.size(); ++k) {
    variants.push_back({{"index", first_index + k},
                        {"code_file", std::filesystem::absolute(code_files[k]).string()}});
  }
  request["variants"] = variants;
  return request;
}

}  // namespace keval
