#include "engine/run_session.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "common/cache_root.h"
#include "common/near_name.h"
#include "engine/ceilings.h"
#include "engine/code_metrics.h"
#include "engine/device_probe.h"
#include "engine/evaluation_key.h"
#include "engine/evaluator.h"
#include "engine/golden_record.h"
#include "engine/out_lock.h"
#include "engine/record_context.h"
#include "engine/rerun_selection.h"
#include "engine/task_selection.h"
#include "engine/sandbox_settings.h"
#include "engine/sanitized_runner.h"
#include "engine/uid_lease.h"
#include "engine/variant_batch.h"
#include "judge/harness_fault.h"
#include "judge/judge.h"
#include "engine/case_results.h"
#include "report/job_seconds.h"
#include "report/progress.h"
#include "report/summary.h"
#include "store/store.h"
#include "submission/content_hash.h"
#include "submission/file_text.h"
#include "submission/static_scan.h"

namespace keval {
namespace {

// Runs `count` work items on the slots, one thread per slot, items taken in order. An item
// that throws is handed to `failed` (its slot goes on with the next item).
template <typename Work, typename Failed>
void run_on_slots(std::vector<std::unique_ptr<WorkerSlot>>& slots, size_t count, Work work,
                  Failed failed) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (auto& slot : slots) {
    threads.emplace_back([&, runner = slot.get()] {
      for (size_t i = next++; i < count; i = next++) {
        try {
          work(*runner, i);
        } catch (const std::exception& e) {
          failed(i, e.what());
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

SubmissionResult bad_result(const Submission& s, std::string reason) {
  SubmissionResult r;
  r.id = s.id;
  r.task = s.task;
  r.origin = s.origin;
  r.hash = s.hash;
  r.judgement = {Verdict::kBadSubmission, {std::move(reason)}};
  return r;
}

nlohmann::json environment_of(const nlohmann::json& probe, const std::string& device,
                              const RunnerConfig& config) {
  return {{"gpu", device == "cuda" ? probe.value("gpu_name", nlohmann::json(nullptr)) : nlohmann::json(nullptr)},
          {"gpu_count", probe.value("gpu_count", 0)},
          {"driver", probe.value("driver", nlohmann::json(nullptr))},
          {"torch", probe.value("torch", nlohmann::json(nullptr))},
          {"torch_cuda", probe.value("torch_cuda", nlohmann::json(nullptr))},
          {"triton", probe.value("triton", nlohmann::json(nullptr))},
          {"python", probe.value("python", nlohmann::json(nullptr))},
          {"python_executable", config.python},
          {"keval_version", KEVAL_VERSION},
          {"device_mode", device == "cuda" ? "cuda" : "cpu_interpreter"},
          {"timing_note", device == "cuda" ? "CUDA events, cold L2, launch cover"
                                            : "wall-clock under the Triton interpreter: indicative only"}};
}

std::string submission_suffix(const Task& task) {
  std::ifstream in(task.dir / "submission_suffix.py", std::ios::binary);
  if (!in) return "";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return "\n\n# --- keval adapter glue (" + task.name + ") ---\n" + text;
}

}  // namespace

RunOutput run_session(const Suite& suite, const std::vector<Submission>& submissions,
                      const RunOptions& options, std::ostream& log) {
  check_tasks_glob(suite, options.tasks_glob, submissions);
  OutLock out_lock(options.out);
  std::filesystem::create_directories(options.out / "work");
  std::filesystem::create_directories(options.out / "logs");
  Store store(options.out / "keval.db");
  const RerunSelection rerun = RerunSelection::parse(options.rerun, suite);
  const std::string cache_root = keval_cache_root().string();

  RunnerConfig config;
  config.python = choose_python(options.python);
  config.runner_dir = find_runner_dir();
  config.log_path = options.out / "logs" / "runner-0.log";
  // CPU threads per job: the machine's cores shared by the slots that run side by side
  // (oversubscribed BLAS threads made the interpreter's tl.dot several times slower; on a
  // GPU machine the cores speed up building large inputs).
  const int per_slot_guess = options.jobs > 0 ? options.jobs : 2;
  const std::string threads = std::to_string(
      std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(per_slot_guess)));
  config.extra_env = {{"OMP_NUM_THREADS", threads}, {"OPENBLAS_NUM_THREADS", threads},
                      {"MKL_NUM_THREADS", threads}};
  if (std::find(options.baselines.begin(), options.baselines.end(), "compile") != options.baselines.end()) {
    config.extra_env["KEVAL_PRELOAD_COMPILE"] = "1";  // the zygote imports torch.compile once
  }
  ProbedDevice probed = probe_device(options.device, config, options.out / "work" / "probe");
  config.interpret = probed.device == "cpu";

  RunSettings settings;
  settings.device = probed.device;
  settings.seeds_per_case = options.seeds;
  settings.min_own_gpu_share = options.min_own_share;
  settings.seed_base = std::random_device{}();
  settings.timing = TimingSettings::for_device(settings.device);
  settings.timing.enabled = options.timing;
  if (options.timing_max_seconds > 0) settings.timing.max_seconds = options.timing_max_seconds;
  if (options.timing_max_samples > 0) {
    settings.timing.max_samples = options.timing_max_samples;
    settings.timing.min_samples = std::min(settings.timing.min_samples, options.timing_max_samples);
  }
  if (!options.baselines.empty()) settings.baselines = options.baselines;
  if (options.no_baselines) settings.baselines.clear();
  settings.time_largest_case_only = options.time_largest_case_only;
  settings.quick_correctness = options.quick_correctness;
  if (options.batch_variants) {
    // keval's own variants (variant_batch.h): no re-run, no profile, no ablation to pay for
    settings.check_determinism = false;
    settings.checks.profile_kernels = false;
    settings.own_variants = true;
  }
  settings.timeout = std::chrono::seconds(options.timeout_s > 0 ? options.timeout_s
                                          : settings.device == "cuda" ? 180 : 600);
  SandboxSettings sandbox = decide_sandbox(options.sandbox, settings.device,
                                           static_cast<int>(settings.timeout.count()),
                                           python_install_dirs(config.python));
  apply_probe_capabilities(sandbox, probed.probe, settings.device);
  // Jobs running as another uid must reach their folders: when --out sits below a folder
  // others cannot enter (a 0700 home or temp dir), the job folders go to /var/tmp instead.
  std::filesystem::path work_root = options.out / "work";
  if (sandbox.enabled && sandbox.uid_base && !readable_by_others(work_root.string())) {
    work_root = std::filesystem::path("/var/tmp/keval-work") /
                (std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(work_root);
    for (auto dir = work_root; dir != dir.root_path(); dir = dir.parent_path()) {
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                            std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                            std::filesystem::perms::others_exec);
      if (dir.parent_path() == "/var/tmp") break;
    }
    sandbox.warnings.push_back(options.out.string() + " is not reachable by other users: job folders are under " +
                               work_root.string());
  }
  auto slot_sandbox = [&](int slot) {
    return sandbox.for_slot(slot, cache_root);
  };
  probed.first_slot->set_sandbox(slot_sandbox(0));
  nlohmann::json environment = environment_of(probed.probe, settings.device, config);
  environment["sandbox"] = sandbox.describe();
  environment["min_own_share"] = settings.min_own_gpu_share;
  const std::string gpu_name = environment["gpu"].is_string() ? environment["gpu"].get<std::string>() : "";
  // A golden record replaces timing the goldens in this run; it must fit this environment.
  std::optional<GoldenRecord> recorded;
  std::string record_path = options.golden_from;
  if (record_path.empty()) {
    if (const char* dir = std::getenv("KEVAL_GOLDEN_DIR"); dir && *dir) {
      auto candidate = std::filesystem::path(dir) / GoldenRecord::file_name_for(environment);
      if (std::filesystem::exists(candidate)) record_path = candidate.string();
    }
  }
  if (!record_path.empty() && settings.timing.enabled && !settings.baselines.empty() &&
      settings.baselines.front() == "golden") {
    recorded = GoldenRecord::load(record_path);
    if (std::string why = recorded->mismatch(environment); !why.empty()) {
      throw HarnessError(record_path + ": " + why);
    }
    settings.baselines.erase(settings.baselines.begin());
    environment["golden_record"] = record_path;
  }
  EvaluationContext context{std::filesystem::weakly_canonical(std::filesystem::absolute(suite.dir())).string(),
                            gpu_name, options.sanitize, "", runner_code_hash(find_runner_dir())};
  if (recorded) context.golden_record = sha256_hex(read_file_text(record_path));
  int64_t run_id = store.begin_run({suite.dir().string(), options.submissions_label,
                                    settings.device, settings.to_json(), environment});

  // Classify: bad, already judged (resume), or pending.
  std::vector<std::optional<SubmissionResult>> results(submissions.size());
  std::vector<std::string> keys(submissions.size());
  std::vector<size_t> pending;
  std::map<std::string, size_t> first_pending_of;            // key -> first line with it
  std::vector<std::pair<size_t, size_t>> same_code_as;       // (line, earlier line, same key)
  size_t resumed = 0;
  const auto selected = suite.select(options.tasks_glob);
  for (size_t i = 0; i < submissions.size(); ++i) {
    const Submission& s = submissions[i];
    if (!s.error.empty()) {
      results[i] = bad_result(s, s.error);
      continue;
    }
    const Task* task = suite.find(s.task);
    if (!task) {
      results[i] = bad_result(s, s.origin + ": unknown task \"" + s.task + "\"" + did_you_mean(s.task, suite.names()));
      continue;
    }
    if (std::find(selected.begin(), selected.end(), task) == selected.end()) continue;
    keys[i] = evaluation_key(s.hash, *task, settings, context);
    if (auto stored = store.find_result(keys[i]); stored && !rerun.wants(*stored)) {
      results[i] = std::move(*stored);
      results[i]->id = s.id;  // the stored result may come from a line with another id
      results[i]->origin = s.origin;
      ++resumed;
      continue;
    }
    // The same code for the same task twice in one file: judged once (one key, one work folder,
    // one stored evaluation), its result given to each line.
    if (auto [first, inserted] = first_pending_of.emplace(keys[i], i); !inserted) {
      same_code_as.emplace_back(i, first->second);
      continue;
    }
    pending.push_back(i);
  }
  for (size_t i = 0; i < submissions.size(); ++i) {
    if (results[i] && results[i]->judgement.verdict == Verdict::kBadSubmission && keys[i].empty()) {
      keys[i] = sha256_hex("bad\n" + submissions[i].hash);
      if (!store.find_result(keys[i])) {
        store.put_evaluation(run_id, keys[i], submissions[i].code, 0, *results[i], nullptr);
      }
    }
  }

  // Efficiency needs this GPU's measured ceilings (cached per GPU model and driver).
  std::optional<Ceilings> ceilings;
  if (settings.device == "cuda" && settings.timing.enabled && !pending.empty()) {
    ceilings = load_or_measure_ceilings(*probed.first_slot, gpu_name,
                                        probed.probe["driver"].is_string() ? probed.probe["driver"].get<std::string>() : "unknown",
                                        options.out / "work" / "ceilings");
    environment["ceilings"] = ceilings ? ceilings->raw : nlohmann::json(nullptr);
  }

  // Warm worker slots: `jobs` per GPU (or on the CPU), started in parallel (each imports torch
  // once). Slots pull work dynamically, so a slow job never holds back the other GPUs.
  std::vector<int> gpus = options.gpus;
  if (gpus.empty()) {
    int count = settings.device == "cuda" ? std::max(1, probed.probe.value("gpu_count", 1)) : 1;
    for (int g = 0; g < count; ++g) gpus.push_back(g);
  }
  const int per_gpu = options.jobs > 0 ? options.jobs : 2;
  const int wanted = std::max<int>(1, std::min<int>(per_gpu * static_cast<int>(gpus.size()),
                                                    static_cast<int>(std::max<size_t>(pending.size(), 1))));
  // A timing job that waits for a CPU core reads host times far above its event times, which
  // the hidden-work check takes for work outside the timed stream (seen on the H200 at 20
  // slots on 16 cores).
  const unsigned cores = std::thread::hardware_concurrency();
  if (settings.device == "cuda" && cores > 0 && static_cast<unsigned>(wanted) >= cores) {
    std::cerr << "keval: warning: " << wanted << " slots on " << cores
              << " CPU cores: timing jobs may wait for a core, and honest kernels may then be "
                 "judged tampering (use --jobs below the core count)\n";
  }
  // Each slot's uid is leased for this run, so a concurrent run never kills our jobs' processes.
  std::optional<UidLease> uid_lease =
      sandbox.uid_base ? UidLease::acquire(wanted) : std::optional<UidLease>();
  if (sandbox.uid_base) {
    if (uid_lease) {
      sandbox.slot_uids = uid_lease->uids();
    } else {
      sandbox.uid_base.reset();
      sandbox.warnings.push_back("jobs run as root: no free uid to lease for every slot");
    }
    probed.first_slot->set_sandbox(slot_sandbox(0));
    environment["sandbox"] = sandbox.describe();
  }
  std::vector<std::unique_ptr<WorkerSlot>> slots;
  slots.push_back(std::move(probed.first_slot));
  {
    std::vector<std::thread> starters;
    for (int i = 1; i < wanted; ++i) {
      RunnerConfig slot_config = config;
      slot_config.log_path = options.out / "logs" / ("runner-" + std::to_string(i) + ".log");
      slots.push_back(std::make_unique<WorkerSlot>(slot_config, slot_sandbox(i)));
      starters.emplace_back([slot = slots.back().get()] { slot->start(); });
    }
    for (auto& starter : starters) starter.join();
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i]->set_gpu(gpus[i % gpus.size()]);
    slots[i]->set_fresh_process_per_job(options.fresh_process_per_job);
  }
  // One lease per GPU: correctness jobs share it, a timing job has it alone, so timed work never
  // shares a GPU with another job's kernels (on the CPU, timing shares nothing either: wall-clock
  // samples of two interpreters on two cores would disturb each other).
  std::map<int, DeviceLease> leases;
  std::map<int, EvaluationLimit> limits;  // fewer evaluations at once on a GPU that ran out of memory
  for (int g : gpus) {
    limits.try_emplace(g);
    leases[g].set_hold_file(std::filesystem::absolute(work_root / ("device-hold-" + std::to_string(g))));
  }
  std::mutex mutex;
  const std::string baseline_name = settings.baselines.empty() ? "" : settings.baselines.front();

  // --sanitize: per slot, a runner under compute-sanitizer, ended after each job (the tool
  // writes its summary when the process exits).
  std::vector<std::unique_ptr<WorkerSlot>> sanitizer_slots;
  std::vector<std::unique_ptr<SanitizedRunner>> sanitizers;
  if (options.sanitize) {
    const std::string tool = find_compute_sanitizer();
    if (settings.device != "cuda") log << "keval: --sanitize on the CPU: memcheck sees no GPU work\n";
    for (size_t i = 0; i < slots.size(); ++i) {
      RunnerConfig sanitized = config;
      sanitized.log_path = options.out / "logs" / ("sanitizer-runner-" + std::to_string(i) + ".log");
      const auto memcheck_log = options.out / "logs" / ("memcheck-" + std::to_string(i) + ".log");
      sanitized.wrapper = memcheck_wrapper(tool, memcheck_log);
      // Each tensor its own cudaMalloc: memcheck then knows every tensor's bounds (inside the
      // caching allocator's segments an access past a tensor's end looked valid to it).
      sanitized.extra_env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1";
      sanitizer_slots.push_back(std::make_unique<WorkerSlot>(sanitized));
      sanitizer_slots.back()->set_gpu(slots[i]->gpu());
      WorkerSlot* slot = sanitizer_slots.back().get();
      sanitizers.push_back(std::make_unique<SanitizedRunner>(
          *slot, [slot] { slot->stop(std::chrono::seconds(120)); }, memcheck_log));
    }
  }
  std::map<const WorkerSlot*, JobRunner*> sanitizer_of;
  for (size_t i = 0; i < sanitizers.size(); ++i) sanitizer_of[slots[i].get()] = sanitizers[i].get();

  // results.jsonl grows as evaluations finish, so a run cut short keeps what it judged (the
  // store has it too); it is rewritten in the submissions' order at the end.
  std::ofstream partial_results(options.out / "results.jsonl");
  auto stream_result = [&](const SubmissionResult& r) {
    partial_results << r.to_json().dump() << "\n" << std::flush;
  };
  for (const auto& r : results) {
    if (r) stream_result(*r);  // bad and resumed ones
  }

  std::vector<std::string> unjudged(submissions.size());  // harness faults' reasons
  Progress progress(log, pending.size(), options.progress, ::isatty(2));
  // A peer suite's task may bring glue (e.g. KernelBench: build ModelNew, copy Model's weights,
  // expose an entry); it runs in the submission's module, so its kernels stay "own".
  auto write_code = [&](size_t i, const Task& task) {
    JobDirs dirs{work_root / keys[i].substr(0, 16)};
    dirs.create();
    std::ofstream(dirs.code_file(), std::ios::binary) << submissions[i].code << submission_suffix(task);
    return dirs;
  };
  // A fault of keval or the machine while evaluating one submission: never its verdict, never
  // stored (the next run judges it again); the run goes on and exits non-zero at the end.
  auto leave_unjudged = [&](size_t i, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    unjudged[i] = what;
    log << "keval: harness error on " << submissions[i].id << ": " << what << "\n";
    progress.finished_one(false, submissions[i].id + " not judged (harness error)");
  };
  auto record_result = [&](size_t i, const Task& task, const EvaluationFacts& facts, const StaticScan& scan) {
    if (auto fault = harness_fault(facts)) return leave_unjudged(i, *fault);
    const Submission& s = submissions[i];
    SubmissionResult result;
    result.id = s.id;
    result.task = s.task;
    result.category = task.category;
    result.track = task.track;
    result.origin = s.origin;
    result.hash = s.hash;
    const JudgePolicy policy = judge_policy(task, settings);
    result.judgement = judge(facts, policy);
    result.static_flags = scan.flags;
    result.job_seconds = job_seconds(facts);
    result.set_call(verdict_counts_as_call(result.judgement.verdict));
    std::lock_guard<std::mutex> lock(mutex);
    fill_case_results(result, task, facts, recorded ? "golden" : baseline_name, settings.device == "cuda",
                      ceilings ? &*ceilings : nullptr, recorded ? &*recorded : nullptr);
    const RecordContext record = record_context(task, settings, options.suite_label, s.code);
    store.put_evaluation(run_id, keys[i], s.code, task.version, result, &facts, &record, policy.to_json());
    results[i] = std::move(result);
    stream_result(*results[i]);
    progress.finished_one(results[i]->exec(), results[i]->id + " " +
                                                  std::string(verdict_name(results[i]->judgement.verdict)));
  };
  if (options.batch_variants) {
    // keval sweep's own variants: a task's variants share sweep jobs (variant_batch.h)
    const auto batches = variant_batches(submissions, pending, slots.size());
    run_on_slots(slots, batches.size(), [&](WorkerSlot& runner, size_t b) {
      const Task& task = *suite.find(submissions[batches[b].front()].task);
      std::vector<std::filesystem::path> code_files;
      for (size_t i : batches[b]) code_files.push_back(write_code(i, task).code_file());
      EvaluationPlace place(limits.at(runner.gpu()));
      // each variant is stored as it finishes: a sweep stopped midway resumes after it
      evaluate_variant_batch(runner, task, settings, code_files,
                             work_root / ("sweep-" + keys[batches[b].front()].substr(0, 16)),
                             &leases.at(runner.gpu()), [&](size_t k, EvaluationFacts facts) {
                               const size_t i = batches[b][k];
                               record_result(i, task, facts, scan_python_source(submissions[i].code, task.entry));
                             });
    }, [&](size_t b, const std::string& what) {
      for (size_t i : batches[b]) {
        if (!results[i] && unjudged[i].empty()) leave_unjudged(i, what);
      }
    });
  } else {
    run_on_slots(slots, pending.size(), [&](WorkerSlot& runner, size_t p) {
      const size_t i = pending[p];
      const Task& task = *suite.find(submissions[i].task);
      const JobDirs dirs = write_code(i, task);
      const StaticScan scan = scan_python_source(submissions[i].code, task.entry);
      EvaluationFacts facts;
      {
        EvaluationLimit& limit = limits.at(runner.gpu());
        EvaluationPlace place(limit);
        facts = evaluate_submission(runner, task, settings, dirs, &leases.at(runner.gpu()),
                                    sanitizer_of.count(&runner) ? sanitizer_of.at(&runner) : nullptr, &limit,
                                    scan.harness_reach());
      }
      record_result(i, task, facts, scan);
    }, [&](size_t p, const std::string& what) { leave_unjudged(pending[p], what); });
  }
  progress.close();
  // Every runner leaves at once: one by one, each slot's exit (its CUDA teardown) adds up.
  for (auto& slot : slots) slot->ask_to_leave();
  for (auto& slot : sanitizer_slots) slot->ask_to_leave();
  for (const auto& [g, limit] : limits) {
    if (limit.out_of_memory() > 0) {
      log << "keval: " << limit.out_of_memory() << " job(s) ran out of device memory on GPU " << g
          << " beside other evaluations and fit alone; each halved how many evaluations run there at once"
          << " (it grows back as evaluations end); at the end: "
          << (limit.limit() == 0 ? std::string("every slot") : "at most " + std::to_string(limit.limit())) << "\n";
    }
  }
  for (auto [i, first] : same_code_as) {
    if (!results[first]) {
      unjudged[i] = unjudged[first];
      continue;
    }
    results[i] = *results[first];
    results[i]->id = submissions[i].id;
    results[i]->origin = submissions[i].origin;
  }

  RunOutput output;
  std::vector<const Submission*> scored;  // output.results[j] came from *scored[j]
  for (size_t i = 0; i < results.size(); ++i) {
    if (!unjudged[i].empty()) {
      output.harness_errors.push_back({{"id", submissions[i].id}, {"task", submissions[i].task},
                                       {"origin", submissions[i].origin}, {"reason", unjudged[i]}});
    }
    if (!results[i]) continue;
    results[i]->generation = submissions[i].generation;  // a stored or shared result is another sample's
    output.results.push_back(std::move(*results[i]));
    scored.push_back(&submissions[i]);
  }
  if (wants_code_metrics(options.code_metrics, submissions)) {
    add_code_metrics(output.results, scored, suite, options.out / "work" / "code-metrics", log);
  }
  output.summary = make_summary(output.results, environment);
  output.summary["run_id"] = run_id;
  output.summary["resumed"] = resumed;
  output.summary["same_code"] = same_code_as.size();
  output.summary["speedup_baseline"] =
      settings.timing.enabled && (recorded || !baseline_name.empty()) ? nlohmann::json(recorded ? "golden" : baseline_name)
                                                                       : nlohmann::json(nullptr);
  output.summary["harness_errors"] = output.harness_errors;
  partial_results.close();
  std::ofstream results_file(options.out / "results.jsonl");
  for (const auto& r : output.results) results_file << r.to_json().dump() << "\n";
  std::ofstream(options.out / "summary.json") << output.summary.dump(2) << "\n";
  store.finish_run(run_id, output.summary);
  if (work_root != options.out / "work") {
    std::error_code ignored;
    std::filesystem::remove_all(work_root, ignored);  // a fallback folder: leave no litter
  }
  return output;
}

}  // namespace keval
