#include "engine/resume/resume_index.h"

#include <algorithm>
#include <map>

#include "engine/resume/unknown_task.h"
#include "submission/content_hash.h"

namespace keval {
namespace {

SubmissionResult bad_result(const Submission& s, std::string reason) {
  SubmissionResult r;
  r.id = s.id;
  r.task = s.task;
  r.origin = s.origin;
  r.hash = s.hash;
  r.judgement = {Verdict::kBadSubmission, {std::move(reason)}};
  r.case_checks.emplace();  // no call was made
  return r;
}

}  // namespace

ResumeIndex index_submissions(const std::vector<Submission>& submissions, const Suite& suite,
                              const std::string& tasks_glob, const RunSettings& settings,
                              const EvaluationContext& context, const Store& store,
                              const RerunSelection& rerun) {
  ResumeIndex index;
  index.results.resize(submissions.size());
  index.keys.resize(submissions.size());
  std::map<std::string, size_t> first_pending_of;  // key -> first line with it
  const auto selected = suite.select(tasks_glob);
  for (size_t i = 0; i < submissions.size(); ++i) {
    const Submission& s = submissions[i];
    if (!s.error.empty()) {
      index.results[i] = bad_result(s, s.error);
      continue;
    }
    const Task* task = suite.find(s.task);
    if (!task) {
      index.results[i] = bad_result(s, unknown_task_reason(s, suite.names()));
      continue;
    }
    if (std::find(selected.begin(), selected.end(), task) == selected.end()) continue;
    index.keys[i] = evaluation_key(s.hash, *task, settings, context);
    if (auto stored = store.find_result(index.keys[i]); stored && !rerun.wants(*stored)) {
      index.results[i] = std::move(*stored);
      index.results[i]->id = s.id;  // the stored result may come from a line with another id
      index.results[i]->origin = s.origin;
      ++index.resumed;
      continue;
    }
    // The same code for the same task twice in one file: judged once (one key, one work folder,
    // one stored evaluation), its result given to each line.
    if (auto [first, inserted] = first_pending_of.emplace(index.keys[i], i); !inserted) {
      index.same_code_as.emplace_back(i, first->second);
      continue;
    }
    index.pending.push_back(i);
  }
  return index;
}

void store_bad_submissions(Store& store, int64_t run_id, const std::vector<Submission>& submissions,
                           ResumeIndex& index) {
  for (size_t i = 0; i < submissions.size(); ++i) {
    const auto& result = index.results[i];
    if (result && result->judgement.verdict == Verdict::kBadSubmission && index.keys[i].empty()) {
      index.keys[i] = sha256_hex("bad\n" + submissions[i].hash);
      if (!store.find_result(index.keys[i])) {
        store.put_evaluation(run_id, index.keys[i], submissions[i].code, 0, *result, nullptr);
      }
    }
  }
}

}  // namespace keval
