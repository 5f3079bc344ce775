#include "engine/results/result_recorder.h"

#include <unistd.h>

#include "common/replace_file.h"
#include "engine/jobs/evaluator.h"
#include "engine/results/case_results.h"
#include "engine/results/record_context.h"
#include "engine/settings/run_paths.h"
#include "judge/case_checks.h"
#include "judge/harness_fault.h"
#include "judge/judge.h"
#include "report/job_seconds.h"

namespace keval {

ResultRecorder::ResultRecorder(const std::vector<Submission>& submissions, ResumeIndex& index,
                               RecordingContext context, const std::filesystem::path& results_file,
                               std::ostream& log, bool progress, const std::vector<SubmissionResult>& earlier)
    : submissions_(submissions),
      index_(index),
      context_(std::move(context)),
      log_(log),
      unjudged_(submissions.size()),
      progress_(log, index.pending.size(), progress, ::isatty(2)) {
  std::string start;
  for (const auto& r : earlier) start += r.to_json().dump() + "\n";
  for (const auto& r : index_.results) {
    if (r) start += r->to_json().dump() + "\n";  // bad and resumed ones
  }
  replace_file(results_file, start);
  partial_results_.open(results_file, std::ios::app);
  for (size_t i = 0; i < index_.results.size(); ++i) {
    if (index_.results[i]) tell(i, *index_.results[i]);
  }
}

void ResultRecorder::tell(size_t line, const SubmissionResult& result) const {
  if (!context_.on_result) return;
  context_.on_result(result);
  for (auto [later, first] : index_.same_code_as) {
    if (first != line) continue;
    SubmissionResult copy = result;
    copy.id = submissions_[later].id;
    copy.origin = submissions_[later].origin;
    context_.on_result(copy);
  }
}

void ResultRecorder::record(size_t i, const Task& task, const EvaluationFacts& facts, const StaticScan& scan) {
  if (auto fault = harness_fault(facts)) return leave_unjudged(i, *fault);
  const Submission& s = submissions_[i];
  const RunSettings& settings = context_.settings;
  SubmissionResult result;
  result.id = s.id;
  result.task = s.task;
  result.category = task.category;
  result.track = task.track;
  result.origin = s.origin;
  result.hash = s.hash;
  const JudgePolicy policy = judge_policy(task, settings);
  result.judgement = judge(facts, policy);
  result.case_checks = check_cases(facts, policy);
  if (context_.paths) {
    for (auto& reason : result.judgement.reasons) reason = context_.paths->relative(reason);
    for (auto& check : *result.case_checks) check.reason = context_.paths->relative(check.reason);
  }
  result.static_flags = scan.flags;
  result.job_seconds = job_seconds(facts);
  result.set_call(verdict_counts_as_call(result.judgement.verdict));
  // stored with the reasons' own relative paths, so that keval rejudge rebuilds the same reasons
  const EvaluationFacts stored_facts =
      context_.paths ? EvaluationFacts::from_json(relative_strings(facts.to_json(), *context_.paths)) : facts;
  std::unique_lock<std::mutex> lock(mutex_);
  fill_case_results(result, task, facts, context_.speedup_baseline, settings.device == "cuda",
                    context_.ceilings, context_.golden_record);
  const RecordContext record = record_context(task, settings, context_.suite_label, s.code);
  context_.store.put_evaluation(context_.run_id, index_.keys[i], s.code, task.version, result, &stored_facts,
                                &record, policy.to_json());
  auto& stored = index_.results[i];
  stored = std::move(result);
  partial_results_ << stored->to_json().dump() << "\n" << std::flush;
  progress_.finished_one(stored->exec(), stored->id + " " + std::string(verdict_name(stored->judgement.verdict)));
  const SubmissionResult told = *stored;
  lock.unlock();
  tell(i, told);
}

void ResultRecorder::leave_unjudged(size_t i, const std::string& fault) {
  const std::string why = context_.paths ? context_.paths->relative(fault) : fault;
  std::lock_guard<std::mutex> lock(mutex_);
  unjudged_[i] = why;
  log_ << "keval: harness error on " << submissions_[i].id << ": " << why << "\n";
  progress_.finished_one(false, submissions_[i].id + " not judged (harness error)");
}

bool ResultRecorder::settled(size_t i) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.results[i] || !unjudged_[i].empty();
}

void ResultRecorder::close() {
  progress_.close();
  partial_results_.close();
}

RunOutput ResultRecorder::output(std::vector<const Submission*>& scored) {
  auto& results = index_.results;
  for (auto [i, first] : index_.same_code_as) {
    if (!results[first]) {
      unjudged_[i] = unjudged_[first];
      continue;
    }
    results[i] = *results[first];
    results[i]->id = submissions_[i].id;
    results[i]->origin = submissions_[i].origin;
  }
  RunOutput output;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!unjudged_[i].empty()) {
      output.harness_errors.push_back({{"id", submissions_[i].id}, {"task", submissions_[i].task},
                                       {"origin", submissions_[i].origin}, {"reason", unjudged_[i]}});
    }
    if (!results[i]) continue;
    results[i]->generation = submissions_[i].generation;  // a stored or shared result is another sample's
    output.results.push_back(std::move(*results[i]));
    scored.push_back(&submissions_[i]);
  }
  return output;
}

}  // namespace keval
