#pragma once
// What becomes of each evaluation's facts: judged, given its per-case figures, stored, and
// added to results.jsonl as soon as it is judged, so a run cut short keeps what it judged (the
// store has it too; the file is written again in the submissions' order at the end). A fault
// of keval or the machine leaves the submission unjudged instead: never its verdict, never
// stored (the next run judges it again); the run goes on and exits non-zero at the end.
// Every slot's thread records through one recorder.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "common/machine_paths.h"
#include "engine/devices/ceilings.h"
#include "engine/results/golden_record.h"
#include "engine/results/run_output.h"
#include "engine/resume/resume_index.h"
#include "engine/settings/run_settings.h"
#include "facts/evaluation_facts.h"
#include "report/progress.h"
#include "store/store.h"
#include "submission/static_scan.h"
#include "suite/task.h"

namespace keval {

// Told each result as soon as it is settled (bad, resumed or judged), from a slot's thread;
// keval serve answers its clients from it without waiting for the rest of the batch.
using ResultListener = std::function<void(const SubmissionResult&)>;

// What every result of the run is judged, figured and stored with.
struct RecordingContext {
  Store& store;
  int64_t run_id;
  const RunSettings& settings;
  std::string suite_label;            // the suite's name in dataset records
  std::string speedup_baseline;       // what speedups are over ("" = none)
  const Ceilings* ceilings;           // null: no efficiency
  const GoldenRecord* golden_record;  // null: the goldens are timed in the run
  ResultListener on_result = {};      // empty: nobody is told before the run ends
  const MachinePaths* paths = nullptr;  // reasons name folders relative to these; null: as they are
};

class ResultRecorder {
 public:
  // Starts results.jsonl with `earlier` (the folder's results of tasks this run leaves alone)
  // and the results `index` already has (bad and resumed ones), replacing the old file whole, so
  // a run killed at any point leaves every one of them there; and the progress line (one step
  // per pending submission).
  ResultRecorder(const std::vector<Submission>& submissions, ResumeIndex& index, RecordingContext context,
                 const std::filesystem::path& results_file, std::ostream& log, bool progress,
                 const std::vector<SubmissionResult>& earlier = {});

  void record(size_t line, const Task& task, const EvaluationFacts& facts, const StaticScan& scan);
  void leave_unjudged(size_t line, const std::string& why);
  bool settled(size_t line) const;  // judged or left unjudged
  void close();                     // ends the progress line and the streamed results

  // Results in the submissions' order (`scored[j]`: the submission results[j] belongs to) and
  // harness errors; a line whose code an earlier line shares gets that line's result or error.
  RunOutput output(std::vector<const Submission*>& scored);

 private:
  // `result` (line `line`'s) to the listener, and a copy to each later line with the same code.
  void tell(size_t line, const SubmissionResult& result) const;

  const std::vector<Submission>& submissions_;
  ResumeIndex& index_;
  RecordingContext context_;
  std::ostream& log_;
  std::vector<std::string> unjudged_;  // harness faults' reasons, by line
  std::ofstream partial_results_;
  Progress progress_;
  mutable std::mutex mutex_;
};

}  // namespace keval
