#include "judge/judge.h"

#include "judge/call_failure.h"
#include "judge/expected_messages.h"
#include "judge/fact_integrity.h"
#include "judge/hidden_work_check.h"
#include "judge/output_comparison.h"
#include "judge/reason_text.h"

namespace keval {
namespace {

using nlohmann::json;

std::optional<Judgement> judge_process_end(const JobOutcome& job, const std::string& who) {
  if (job.timed_out) {
    return Judgement{Verdict::kTimeout,
                     {who + " killed at its deadline after " + number(job.wall_s) + " s"}};
  }
  if (job.runner_lost) return Judgement{Verdict::kCrash, {who + ": " + job.stderr_tail}};
  return std::nullopt;
}

std::string exit_text(const JobOutcome& job) {
  if (job.signal) return "signal " + std::to_string(*job.signal);
  if (job.exit_code) return "exit code " + std::to_string(*job.exit_code);
  return "unknown status";
}

std::string names_text(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// Hacks that make measurements lie: patched functions, foreign output types, cached outputs,
// work outside the timed stream, writes outside an input's bounds.
std::optional<Judgement> judge_integrity(const JobOutcome& job, const JudgePolicy& policy) {
  for (const TamperingMessage& t : job.messages_of<TamperingMessage>()) {
    return Judgement{Verdict::kTampering, {where(t.at) + "the submission replaced " + names_text(t.names) +
                                           " (during " + t.stage + ")"}};
  }
  for (const CallMessage& call : job.messages_of<CallMessage>()) {
    if (auto failure = call_integrity_failure(call)) return failure;
  }
  const std::vector<TimingMessage> timings = job.messages_of<TimingMessage>();
  for (const TimingMessage& timing : timings) {
    if (!timing.candidate()) continue;  // baselines are trusted
    if (timing.timed_output_mismatches > 0) {
      return Judgement{Verdict::kTampering,
                       {where(timing.at) + std::to_string(timing.timed_output_mismatches) + " of " +
                        std::to_string(timing.timed_output_checks) +
                        " timed calls returned outputs that differ from the verified ones "
                        "(cached or replayed results)"}};
    }
    if (timing.l2_persisting_bytes > 0) {
      return Judgement{Verdict::kTampering,
                       {where(timing.at) + "the submission set " + std::to_string(timing.l2_persisting_bytes) +
                        " bytes of L2 aside for persisting accesses, which would outlast the "
                        "cold-L2 flush between timed samples"}};
    }
    if (policy.check_hidden_work && timing.method == "cuda_event_cold_l2") {
      std::vector<const TimingMessage*> controls;  // the baselines timed beside it
      for (const TimingMessage& other : timings) {
        if (!other.candidate() && other.at.same_case(timing.at.case_name.value_or(""), timing.at.dtype.value_or(""))) {
          controls.push_back(&other);
        }
      }
      if (auto why = hidden_work(timing, controls, policy)) return Judgement{Verdict::kTampering, {where(timing.at) + *why}};
    }
  }
  return std::nullopt;
}

std::optional<Judgement> judge_fallback(const JobOutcome& job, const JudgePolicy& policy) {
  if (!policy.require_kernel) return std::nullopt;  // any code may do the work (e.g. KernelBench's)
  for (const AblationMessage& ablation : job.messages_of<AblationMessage>()) {
    if (ablation.outputs_unchanged) {
      return Judgement{Verdict::kLibraryFallback,
                       {where(ablation.at) + "with the submission's own kernels (" + names_text(ablation.suppressed) +
                        ") suppressed, the call's outputs did not change: other code did the work"}};
    }
  }
  for (const KernelProfileMessage& profile : job.messages_of<KernelProfileMessage>()) {
    // null: the call took no device time at all, so no share of it went elsewhere
    if (!profile.own_share) continue;
    const double share = *profile.own_share;
    if (share < policy.min_own_gpu_share) {
      std::string top;
      for (const ProfiledKernel& kernel : profile.kernels) {
        if (kernel.own) continue;
        top += (top.empty() ? "" : ", ") + kernel.name.substr(0, 60);
        if (top.size() > 150) break;
      }
      return Judgement{Verdict::kLibraryFallback,
                       {where(profile.at) + "the submission's Triton kernels took " +
                        number(share * 100) + "% of the call's GPU time (at least " +
                        number(policy.min_own_gpu_share * 100) + "% required); other kernels: " + top}};
    }
  }
  return std::nullopt;
}

std::optional<Judgement> judge_candidate(const JobOutcome& job, const JudgePolicy& policy) {
  if (auto end = judge_process_end(job, "the submission")) return end;
  const auto errors = job.messages_of<ErrorMessage>();
  for (const ErrorMessage& error : errors) {
    if (error.stage == "import") {
      return Judgement{is_compile_error(error.error_kind) ? Verdict::kCompileError : Verdict::kRuntimeError,
                       {"while loading the submission: " + error_text(error)}};
    }
    if (error.stage == "entry") return Judgement{Verdict::kMissingEntry, {error.message}};
  }
  // What a call was seen doing outranks how the process ended afterwards (a write outside an
  // input's bounds can corrupt the heap and abort the job before it reports `done`).
  if (auto integrity = judge_integrity(job, policy)) return integrity;
  if (!job.done) {
    std::string reason = "the process ended (" + exit_text(job) + ") before reporting every result";
    // the first error it reported says why (a lost CUDA context, the runner's own fault)
    if (!errors.empty()) reason += ": " + error_text(errors.front());
    if (!job.stderr_tail.empty()) reason += "; stderr: " + job.stderr_tail.substr(0, 500);
    return Judgement{Verdict::kCrash, {reason}};
  }
  for (const ErrorMessage& error : errors) {
    if (error.stage == "call") return failed_call(error);
  }
  for (const ErrorMessage& error : errors) {
    if (error.stage == "profile") continue;  // informs only
    return Judgement{Verdict::kCrash, {"harness: " + error_text(error)}};
  }
  const auto calls = job.messages_of<CallMessage>();
  if (calls.empty()) return Judgement{Verdict::kCrash, {"the submission reported no calls"}};
  bool any_kernel = false;
  std::string other;
  for (const CallMessage& call : calls) {
    if (auto failure = call_input_failure(call, policy.inplace)) return failure;
    if (!call.kernels.empty()) any_kernel = true;
    if (!call.other_kernels.empty() && other.empty()) other = json(call.other_kernels).dump();
  }
  if (!any_kernel && policy.require_kernel) {
    return Judgement{Verdict::kNoKernel,
                     {"no Triton kernel defined in the submission ran during its calls" +
                      (other.empty() ? std::string() : " (other kernels: " + other + ")")}};
  }
  return judge_fallback(job, policy);
}

// The timing job runs the submission again (many calls, rotated inputs): it can still fail,
// and it is where cached outputs and work outside the timed stream show.
std::optional<Judgement> judge_timing_job(const JobOutcome& job, const JudgePolicy& policy) {
  if (auto end = judge_process_end(job, "the timing job")) return end;
  if (auto integrity = judge_integrity(job, policy)) return integrity;
  for (const ErrorMessage& error : job.messages_of<ErrorMessage>()) {
    if (error.stage == "profile") continue;
    if (error.stage == "call" || error.stage == "timing" || error.stage == "import") {
      return Judgement{call_error_verdict(error.error_kind), {"while timing: " + error_text(error)}};
    }
    return Judgement{Verdict::kCrash, {"harness (timing): " + error_text(error)}};
  }
  if (!job.done) {
    return Judgement{Verdict::kCrash, {"the timing job ended (" + exit_text(job) +
                                       ") before reporting every result"}};
  }
  // Every failure it could report was judged above: a case with neither a time nor an error,
  // or a timed case without its profile, had its message suppressed.
  if (auto gap = missing_timing(job, policy.timed_cases)) return Judgement{Verdict::kTampering, {*gap}};
  if (policy.profile_kernels) {
    if (auto gap = missing_kernel_profile(job)) return Judgement{Verdict::kTampering, {*gap}};
  }
  return judge_fallback(job, policy);
}

// --sanitize: memcheck's errors are out-of-bounds (or freed, misaligned) accesses; a job whose
// log holds no summary means the tool never ran, which must not read as a clean check.
std::optional<Judgement> judge_memcheck(const JobOutcome& job) {
  const auto reports = job.messages_of<MemcheckMessage>();
  if (reports.empty()) {
    return Judgement{Verdict::kCrash, {"harness: the compute-sanitizer job has no memcheck report (" +
                                       exit_text(job) + ")"}};
  }
  for (const MemcheckMessage& report : reports) {
    if (!report.summary_found) {
      return Judgement{Verdict::kCrash, {"harness: compute-sanitizer wrote no error summary (" +
                                         exit_text(job) + "; log " + report.log + ")"}};
    }
    if (report.errors > 0) {
      std::string first = names_text(report.first_errors);
      return Judgement{Verdict::kOutOfBounds, {"compute-sanitizer memcheck found " + std::to_string(report.errors) +
                                               " error(s) on the small cases" + (first.empty() ? "" : ": " + first)}};
    }
  }
  return std::nullopt;
}

// The reference job compared the candidate's differing re-run with its first call outside the
// elements the reference leaves undefined (tasks with check_reference_defined) and found none.
bool differs_only_where_reference_undefined(const DeterminismMessage& check,
                                            const std::vector<CompareMessage>& compares) {
  for (const CompareMessage& compare : compares) {
    if (compare.at.same_call(check.at) && compare.rerun_differs_where_defined) {
      return !*compare.rerun_differs_where_defined;
    }
  }
  return false;
}

// A pass says what it could not check: calls whose guard bands the warden could not place (out
// of memory) had no out-of-bounds check. The call still counts; the reader is told.
std::vector<std::string> unchecked_bounds(const JobOutcome& candidate) {
  std::vector<std::string> notes;
  for (const CallMessage& call : candidate.messages_of<CallMessage>()) {
    if (!call.guard_bands_dropped) continue;
    notes.push_back(where(call.at) + "no guard bands (" + *call.guard_bands_dropped +
                    "): writes outside the inputs' bounds were not checked on this call");
  }
  return notes;
}

Judgement judge_facts(const EvaluationFacts& facts, const JudgePolicy& policy) {
  if (auto reach = judge_harness_reach(facts.harness_reach)) return *reach;
  if (auto malformed = judge_malformed_facts(facts)) return *malformed;
  if (auto failure = judge_candidate(facts.candidate, policy)) return *failure;
  if (!facts.reference) return {Verdict::kCrash, {"harness: the reference comparison did not run"}};
  const JobOutcome& reference = *facts.reference;
  const auto reference_errors = reference.messages_of<ErrorMessage>();
  if (reference.timed_out || reference.runner_lost || !reference.done) {
    std::string reason = "harness: the reference job failed (" + exit_text(reference) + ")";
    for (const ErrorMessage& error : reference_errors) reason += "; " + error_text(error);
    return {Verdict::kCrash, {reason}};
  }
  if (auto gap = missing_comparison(facts.candidate, reference)) {
    std::string reason = "harness: " + *gap;
    if (!reference_errors.empty()) reason += "; " + error_text(reference_errors.front());
    return {Verdict::kCrash, {reason}};
  }
  const auto compares = reference.messages_of<CompareMessage>();
  if (auto wrong = judge_outputs(compares, policy)) return *wrong;
  if (compares.empty()) return {Verdict::kCrash, {"harness: no comparison was reported"}};
  if (policy.check_determinism) {
    if (auto gap = missing_determinism(facts.candidate)) return {Verdict::kTampering, {*gap}};
  }
  for (const DeterminismMessage& check : facts.candidate.messages_of<DeterminismMessage>()) {
    if (!check.same && !differs_only_where_reference_undefined(check, compares)) {
      return {Verdict::kNondeterministic,
              {where(check.at) + "two runs on the same inputs differ (max abs diff " +
               number(check.max_abs_diff) + ")"}};
    }
  }
  if (facts.sanitizer) {
    if (auto failure = judge_memcheck(*facts.sanitizer)) return *failure;
  }
  if (facts.timing) {
    if (auto failure = judge_timing_job(*facts.timing, policy)) return *failure;
  }
  return {Verdict::kPass, unchecked_bounds(facts.candidate)};
}

}  // namespace

// Every fact is typed before it is read (judge_malformed_facts), so nothing below throws on a
// message of the wrong shape; a broken invariant still does.
Judgement judge(const EvaluationFacts& facts, const JudgePolicy& policy) { return judge_facts(facts, policy); }

bool verdict_counts_as_call(Verdict verdict) {
  switch (verdict) {
    case Verdict::kBadSubmission:
    case Verdict::kMissingEntry:
    case Verdict::kCompileError:
    case Verdict::kRuntimeError:
    case Verdict::kCrash:
    case Verdict::kTimeout:
      return false;
    default:
      return true;
  }
}

}  // namespace keval
