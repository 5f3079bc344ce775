#include "engine/session/run_session.h"

#include <fstream>
#include <limits>
#include <optional>
#include <set>

#include "common/cache_root.h"
#include "common/replace_file.h"
#include "engine/devices/ceilings.h"
#include "engine/devices/device_probe.h"
#include "engine/results/golden_record.h"
#include "engine/results/out_lock.h"
#include "engine/results/result_recorder.h"
#include "engine/resume/earlier_results.h"
#include "engine/resume/evaluation_key.h"
#include "engine/resume/rerun_selection.h"
#include "engine/resume/resume_index.h"
#include "engine/runner/run_interruption.h"
#include "engine/session/code_metrics.h"
#include "engine/session/evaluation_scheduler.h"
#include "engine/session/task_selection.h"
#include "engine/session/work_root.h"
#include "engine/settings/run_environment.h"
#include "engine/settings/run_paths.h"
#include "engine/settings/sandbox_settings.h"
#include "engine/slots/slot_pool.h"
#include "report/summary.h"
#include "store/store.h"
#include "submission/content_hash.h"
#include "submission/file_text.h"

namespace keval {

RunOutput run_session(const Suite& suite, const std::vector<Submission>& submissions,
                      const RunOptions& options, std::ostream& log, WarmEngine* warm,
                      const ResultListener& on_result) {
  if (options.sanitize) warm = nullptr;  // sanitizer runners end after every job: nothing stays warm
  check_tasks_glob(suite, options.tasks_glob, submissions);
  std::optional<OutLock> out_lock;
  if (!options.out_locked) out_lock.emplace(options.out);
  std::filesystem::create_directories(options.out / "work");
  std::filesystem::create_directories(options.out / "logs");
  Store store(options.store_file.empty() ? options.out / "keval.db" : options.store_file);
  const RerunSelection rerun = RerunSelection::parse(options.rerun, suite);
  const std::string cache_root = keval_cache_root().string();

  RunnerConfig config = runner_config(options);
  ProbedDevice probed;
  if (warm && warm->started()) {
    probed.device = warm->device;
    probed.probe = warm->probe;
  } else {
    probed = probe_device(options.device, config, options.out / "work" / "probe");
  }
  config.interpret = probed.device == "cpu";
  RunSettings settings = run_settings(options, probed.device);
  SandboxSettings sandbox = decide_sandbox(options.sandbox, settings.device,
                                           static_cast<int>(settings.timeout.count()),
                                           python_install_dirs(config.python));
  apply_probe_capabilities(sandbox, probed.probe, settings.device);
  const std::filesystem::path work_root = job_work_root(options.out, sandbox);
  const MachinePaths paths = run_paths(options, suite, work_root);
  if (warm && warm->started()) {
    warm->pool->resandbox(sandbox, cache_root);
  } else {
    probed.first_slot->set_sandbox(sandbox.for_slot(0, cache_root));
  }
  nlohmann::json environment = run_environment(probed.probe, settings, config, sandbox, paths);
  const std::string gpu_name = environment["gpu"].is_string() ? environment["gpu"].get<std::string>() : "";
  // A golden record replaces timing the goldens in this run; it must fit this environment.
  const std::string record_path = golden_record_path(options.golden_from, environment);
  const std::optional<GoldenRecord> recorded = use_golden_record(record_path, settings, environment);
  const std::filesystem::path runner_dir = find_runner_dir();
  EvaluationContext context{std::filesystem::weakly_canonical(std::filesystem::absolute(suite.dir())).string(),
                            gpu_name, options.sanitize, "", runner_code_hash(runner_dir),
                            adapter_code_hashes(runner_dir, suite.tasks())};
  if (recorded) context.golden_record = sha256_hex(read_file_text(record_path));
  int64_t run_id = store.begin_run({suite.dir().string(), options.submissions_label,
                                    settings.device, settings.to_json(), environment});

  // read before results.jsonl is started again: a --tasks run keeps the folder's other tasks
  std::vector<SubmissionResult> earlier;
  if (!options.tasks_glob.empty()) {
    std::set<std::string> covered;
    for (const Task* task : suite.select(options.tasks_glob)) covered.insert(task->name);
    earlier = earlier_results_outside(options.out / "results.jsonl", covered);
  }

  ResumeIndex index = index_submissions(submissions, suite, options.tasks_glob, settings, context, store, rerun);
  store_bad_submissions(store, run_id, submissions, index);

  // Efficiency needs this GPU's measured ceilings (cached per GPU model and driver).
  std::optional<Ceilings> ceilings;
  if (settings.device == "cuda" && settings.timing.enabled && !index.pending.empty()) {
    JobRunner& first = warm && warm->started() ? warm->pool->slot(0) : *probed.first_slot;
    ceilings = load_or_measure_ceilings(first, gpu_name,
                                        probed.probe["driver"].is_string() ? probed.probe["driver"].get<std::string>() : "unknown",
                                        options.out / "work" / "ceilings");
    environment["ceilings"] = ceilings ? ceilings->raw : nlohmann::json(nullptr);
  }

  std::unique_ptr<SlotPool> own_pool;
  if (!warm || !warm->started()) {
    // a warm engine starts every slot it may need later, not only as many as this run's work
    const size_t slots_for = warm ? std::numeric_limits<size_t>::max() : index.pending.size();
    own_pool = std::make_unique<SlotPool>(std::move(probed.first_slot), options, config, probed.probe,
                                          settings.device, slots_for, sandbox, cache_root, log);
  }
  RunnerSlots& pool = own_pool ? *own_pool : *warm->pool;
  environment["sandbox"] = sandbox.describe(paths);  // with the leased uids
  EvaluationScheduler scheduler(pool, work_root, warm ? warm->gates.get() : nullptr);
  const std::string baseline_name = settings.baselines.empty() ? "" : settings.baselines.front();
  const std::string speedup_baseline = recorded ? "golden" : baseline_name;
  ResultRecorder recorder(submissions, index,
                          {store, run_id, settings, options.suite_label, speedup_baseline,
                           ceilings ? &*ceilings : nullptr, recorded ? &*recorded : nullptr, on_result, &paths},
                          options.out / "results.jsonl", log, options.progress, earlier);
  scheduler.run(suite, submissions, index, settings, options.batch_variants, recorder);
  recorder.close();
  if (warm) {
    if (own_pool) {
      warm->device = probed.device;
      warm->probe = probed.probe;
      warm->pool = std::move(own_pool);
    }
  } else {
    pool.ask_to_leave();
  }
  scheduler.log_memory_limits(log);

  std::vector<const Submission*> scored;  // output.results[j] came from *scored[j]
  RunOutput output = recorder.output(scored);
  if (wants_code_metrics(options.code_metrics, submissions)) {
    add_code_metrics(output.results, scored, suite, options.out / "work" / "code-metrics", log);
  }
  output.summary = make_summary(output.results, environment);
  output.summary["run_id"] = run_id;
  output.summary["resumed"] = index.resumed;
  output.summary["same_code"] = index.same_code_as.size();
  output.summary["speedup_baseline"] =
      settings.timing.enabled && !speedup_baseline.empty() ? nlohmann::json(speedup_baseline) : nlohmann::json(nullptr);
  output.summary["harness_errors"] = output.harness_errors;
  // Ctrl-C: the summary covers what finished; the rest is among harness_errors, unstored
  output.summary["interrupted"] = run_interrupted();
  output.summary["earlier_results"] = earlier.size();
  // the files cover the folder: the earlier results of other tasks first, then this run's
  nlohmann::json folder_summary = output.summary;
  if (!earlier.empty()) {
    std::vector<SubmissionResult> folder_results = earlier;
    folder_results.insert(folder_results.end(), output.results.begin(), output.results.end());
    folder_summary = make_summary(folder_results, environment);
    for (const auto& [key, value] : output.summary.items()) {
      if (!folder_summary.contains(key)) folder_summary[key] = value;
    }
  }
  // each replaced whole: a kill while they are written leaves the old file, never a part
  std::string results_text;
  for (const auto& r : earlier) results_text += r.to_json().dump() + "\n";
  for (const auto& r : output.results) results_text += r.to_json().dump() + "\n";
  replace_file(options.out / "results.jsonl", results_text);
  replace_file(options.out / "summary.json", folder_summary.dump(2) + "\n");
  store.finish_run(run_id, output.summary);
  remove_fallback_work_root(work_root, options.out);
  return output;
}

}  // namespace keval
