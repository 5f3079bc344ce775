#pragma once
// One evaluation run: resolve the device, start warm workers, time goldens, evaluate every
// submission, store and report. Shared by `keval run` and `keval validate`.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"
#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

struct RunOptions {
  std::filesystem::path out;
  std::string device = "auto";  // auto | cpu | cuda
  std::string tasks_glob;       // "" = all
  int jobs = 0;                 // worker slots per GPU (or on the CPU); 0 = 2
  std::vector<int> gpus;        // CUDA devices to use; empty = all the probe saw
  std::vector<std::string> baselines;  // empty = {"golden"}
  bool no_baselines = false;           // time the submissions alone (golden recording)
  bool time_largest_case_only = false; // suite status: one timed case per task
  bool fresh_process_per_job = false;  // benchmark mode: no warm workers
  std::string golden_from;             // a golden record to reuse ("" = $KEVAL_GOLDEN_DIR, if set)
  std::string python;           // "" = $KEVAL_PYTHON or python3
  int timeout_s = 0;            // per job; 0 = default for the device
  int seeds = 2;
  double timing_max_seconds = 0;  // per case, dtype and contender; 0 = the device's default
  double min_own_share = 0.5;   // library_fallback: the share of GPU time own kernels need
  bool timing = true;
  bool sandbox = true;
  bool sanitize = false;  // --sanitize: small cases again under compute-sanitizer memcheck
  bool progress = true;
  std::string submissions_label;  // what was evaluated, for the run record
  std::string suite_label = "keval";  // the suite's name in dataset records (docs/dataset.md)
  bool quick_correctness = false;  // sweep: correctness on the small cases, one seed, then timing
  int timing_max_samples = 0;      // 0 = the device's default
  bool batch_variants = false;     // sweep: keval's own variants, a task's many in one job (variant_batch.h)
  std::string code_metrics = "off";  // CodeBLEU, maintainability: on | off | auto (generated submissions)
  std::string rerun;  // stored results judged again: "", "all", verdicts or task globs (RerunSelection)
};

struct RunOutput {
  std::vector<SubmissionResult> results;  // in submission order
  nlohmann::json summary;
  // Submissions left unjudged by a fault of keval or the machine ({id, task, origin, reason}):
  // not stored, so the next run judges them; also summary.json's `harness_errors`.
  nlohmann::json harness_errors = nlohmann::json::array();
};

// Throws std::runtime_error (HarnessError, StoreError, OutFolderBusy) with a one-line reason
// when the run itself cannot go on; a bad submission is a result, never an exception.
RunOutput run_session(const Suite& suite, const std::vector<Submission>& submissions,
                      const RunOptions& options, std::ostream& log);

}  // namespace keval
