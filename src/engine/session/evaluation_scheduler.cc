#include "engine/session/evaluation_scheduler.h"

#include <atomic>
#include <fstream>
#include <iterator>
#include <thread>

#include "engine/jobs/evaluator.h"
#include "engine/jobs/variant_batch.h"

namespace keval {
namespace {

// Runs `count` work items on the slots, one thread per slot, items taken in order; `work` gets
// the slot's index. An item that throws is handed to `failed` (its slot goes on with the next).
template <typename Work, typename Failed>
void run_on_slots(RunnerSlots& slots, size_t count, Work work, Failed failed) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (size_t s = 0; s < slots.size(); ++s) {
    threads.emplace_back([&, s] {
      for (size_t i = next++; i < count; i = next++) {
        try {
          work(s, i);
        } catch (const std::exception& e) {
          failed(i, e.what());
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

std::string submission_suffix(const Task& task) {
  std::ifstream in(task.dir / "submission_suffix.py", std::ios::binary);
  if (!in) return "";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return "\n\n# --- keval adapter glue (" + task.name + ") ---\n" + text;
}

}  // namespace

EvaluationScheduler::EvaluationScheduler(RunnerSlots& pool, std::filesystem::path work_root, GpuGates* shared_gates)
    : pool_(pool), work_root_(std::move(work_root)) {
  GpuGates& gates = shared_gates ? *shared_gates : own_gates_;
  for (int g : pool_.gpus()) {
    gates_[g] = gates.of(g, std::filesystem::absolute(work_root_ / ("device-hold-" + std::to_string(g))));
  }
}

void EvaluationScheduler::run(const Suite& suite, const std::vector<Submission>& submissions,
                              const ResumeIndex& index, const RunSettings& settings, bool batch_variants,
                              ResultRecorder& recorder) {
  if (batch_variants) {
    run_variant_batches(suite, submissions, index, settings, recorder);
  } else {
    run_one_per_job(suite, submissions, index, settings, recorder);
  }
}

void EvaluationScheduler::run_one_per_job(const Suite& suite, const std::vector<Submission>& submissions,
                                          const ResumeIndex& index, const RunSettings& settings,
                                          ResultRecorder& recorder) {
  const auto& pending = index.pending;
  run_on_slots(pool_, pending.size(), [&](size_t s, size_t p) {
    const size_t i = pending[p];
    const Task& task = *suite.find(submissions[i].task);
    const JobDirs dirs = write_code(submissions[i], index.keys[i], task);
    const StaticScan scan = scan_python_source(submissions[i].code, task.entry);
    EvaluationFacts facts;
    {
      const GpuGates::Pair gates = gates_.at(pool_.gpu_of(s));
      EvaluationGateShare place(*gates.evaluation);
      facts = evaluate_submission(pool_.slot(s), task, settings, dirs, gates.device, pool_.sanitizer_of(s),
                                  gates.evaluation, scan.harness_reach());
    }
    recorder.record(i, task, facts, scan);
  }, [&](size_t p, const std::string& what) { recorder.leave_unjudged(pending[p], what); });
}

void EvaluationScheduler::run_variant_batches(const Suite& suite, const std::vector<Submission>& submissions,
                                              const ResumeIndex& index, const RunSettings& settings,
                                              ResultRecorder& recorder) {
  const auto batches = variant_batches(submissions, index.pending, pool_.size());
  run_on_slots(pool_, batches.size(), [&](size_t s, size_t b) {
    const Task& task = *suite.find(submissions[batches[b].front()].task);
    std::vector<std::filesystem::path> code_files;
    for (size_t i : batches[b]) code_files.push_back(write_code(submissions[i], index.keys[i], task).code_file());
    const GpuGates::Pair gates = gates_.at(pool_.gpu_of(s));
    EvaluationGateShare place(*gates.evaluation);
    // each variant is stored as it finishes: a sweep stopped midway resumes after it
    evaluate_variant_batch(pool_.slot(s), task, settings, code_files,
                           work_root_ / ("sweep-" + index.keys[batches[b].front()].substr(0, 16)),
                           gates.device, [&](size_t k, EvaluationFacts facts) {
                             const size_t i = batches[b][k];
                             recorder.record(i, task, facts, scan_python_source(submissions[i].code, task.entry));
                           });
  }, [&](size_t b, const std::string& what) {
    for (size_t i : batches[b]) {
      if (!recorder.settled(i)) recorder.leave_unjudged(i, what);
    }
  });
}

// A peer suite's task may bring glue (e.g. KernelBench: build ModelNew, copy Model's weights,
// expose an entry); it runs in the submission's module, so its kernels stay "own".
JobDirs EvaluationScheduler::write_code(const Submission& submission, const std::string& key,
                                        const Task& task) const {
  JobDirs dirs{work_root_ / key.substr(0, 16)};
  dirs.create();
  std::ofstream(dirs.code_file(), std::ios::binary) << submission.code << submission_suffix(task);
  return dirs;
}

void EvaluationScheduler::log_memory_limits(std::ostream& log) const {
  for (const auto& [g, gates] : gates_) {
    const EvaluationGate& gate = *gates.evaluation;
    if (gate.out_of_memory() > 0) {
      log << "keval: " << gate.out_of_memory() << " job(s) ran out of device memory on GPU " << g
          << " beside other evaluations and fit alone; each halved how many evaluations run there at once"
          << " (it grows back as evaluations end); at the end: "
          << (gate.limit() == 0 ? std::string("every slot") : "at most " + std::to_string(gate.limit())) << "\n";
    }
  }
}

}  // namespace keval
