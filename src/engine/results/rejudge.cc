#include "engine/results/rejudge.h"

#include <unistd.h>

#include <charconv>
#include <fstream>

#include "engine/results/out_lock.h"
#include "engine/settings/run_paths.h"
#include "judge/case_checks.h"
#include "judge/judge.h"
#include "judge/tolerance_check.h"
#include "report/summary.h"
#include "store/stored_evaluations.h"

namespace keval {
namespace {

using nlohmann::json;

std::vector<SubmissionResult> read_results(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) {
    throw RejudgeInputError(path.string() + ": no such file (is " + path.parent_path().string() +
                            " the --out of a finished keval run?)");
  }
  std::vector<SubmissionResult> results;
  std::string line;
  for (size_t number = 1; std::getline(file, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || !parsed.contains("verdict") || !parsed.contains("task")) {
      throw RejudgeInputError(path.string() + ":" + std::to_string(number) + ": not a result (a JSON object with \"verdict\" and \"task\")");
    }
    results.push_back(SubmissionResult::from_json(parsed));
  }
  return results;
}

json read_summary(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) return json::object();  // a run cut short: its results are still worth judging
  json summary = json::parse(file, nullptr, /*allow_exceptions=*/false);
  return summary.is_object() ? summary : json::object();
}

// Whether an output compared at matching shape and dtype lacks the per-output statistics.
bool lacks_statistics(const EvaluationFacts& facts) {
  if (!facts.reference) return false;
  for (const json* compare : facts.reference->of_type("compare")) {
    for (const json& out : compare->value("outputs", json::array())) {
      if (out.value("shape", json()) == out.value("ref_shape", json()) &&
          out.value("dtype", json()) == out.value("ref_dtype", json()) && !has_tolerance_statistics(out)) {
        return true;
      }
    }
  }
  return false;
}

void write_output(const std::filesystem::path& into, const RejudgeOutput& output) {
  std::error_code error;
  std::filesystem::create_directories(into, error);
  if (error) throw RejudgeInputError(into.string() + ": cannot make the folder: " + error.message());
  std::ofstream results(into / "results.jsonl");
  for (const auto& r : output.results) results << r.to_json().dump() << "\n";
  std::ofstream summary(into / "summary.json");
  summary << output.summary.dump(2) << "\n";
  if (!results || !summary) throw RejudgeInputError(into.string() + ": cannot write results.jsonl or summary.json");
}

}  // namespace

std::string rejudge_folder_name(double tolerance_scale) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, tolerance_scale).ptr;
  return "rejudged-x" + std::string(text, end);
}

SubmissionResult rejudged_result(const SubmissionResult& result, const EvaluationFacts& facts,
                                 const JudgePolicy& policy) {
  SubmissionResult again = result;
  again.judgement = judge(facts, policy);
  again.case_checks = check_cases(facts, policy);
  again.set_call(verdict_counts_as_call(again.judgement.verdict));
  if (again.judgement.verdict != Verdict::kPass) {
    again.speedup.reset();
    again.speedup_ci_low.reset();
    again.speedup_ci_high.reset();
    for (auto& c : again.cases) {
      c.speedup.reset();
      c.speedup_ci_low.reset();
      c.speedup_ci_high.reset();
    }
  }
  return again;
}

RejudgeOutput rejudge_run(RejudgeOptions options) {
  const std::filesystem::path& out = options.out;
  if (!std::filesystem::is_directory(out)) {
    throw RejudgeInputError(out.string() + ": no such folder (give the --out folder of a keval run)");
  }
  const auto db_path = out / "keval.db";
  if (!std::filesystem::is_regular_file(db_path)) {
    throw RejudgeInputError(db_path.string() + ": no such file (is " + out.string() + " the --out of a keval run?)");
  }
  if (options.into.empty()) {
    if (::access(out.c_str(), W_OK) != 0) {
      throw RejudgeInputError(out.string() + ": cannot be written (a read-only mount or another user's run); "
                              "give --into DIR to write the rejudged results elsewhere");
    }
    options.into = out / rejudge_folder_name(options.tolerance_scale);
  }
  std::error_code ignored;
  if (std::filesystem::equivalent(options.into, out, ignored)) {
    throw RejudgeInputError("--into " + options.into.string() +
                            ": that is the run's own folder, whose results rejudge never overwrites; choose another");
  }
  if (std::filesystem::exists(options.into / "keval.db")) {
    throw RejudgeInputError("--into " + options.into.string() +
                            ": holds a keval.db, so it is a run's folder, whose results rejudge never overwrites; choose another");
  }
  std::optional<OutLock> lock;
  try {
    lock.emplace(out);  // a run still writing OUT would leave half its results to judge
  } catch (const OutFolderBusy& busy) {
    throw RejudgeInputError(busy.what());
  } catch (const std::runtime_error&) {
    // a folder keval cannot write to has no run writing it either
  }
  const StoredEvaluations store(db_path);
  // facts stored by a keval that kept the machine's paths in them: OUT's and this machine's own
  const MachinePaths paths = run_paths(out, {}, {}, "", {});
  const json original_summary = read_summary(out / "summary.json");

  RejudgeOutput output;
  output.into = options.into;
  for (const SubmissionResult& result : read_results(out / "results.jsonl")) {
    const std::string before(verdict_name(result.judgement.verdict));
    const auto stored = store.of_result(result.hash, result.task, before);
    if (!stored || stored->facts.is_null() || stored->policy.is_null()) {
      ++output.kept;
      output.results.push_back(result);
      continue;
    }
    const EvaluationFacts facts = EvaluationFacts::from_json(stored->facts);
    JudgePolicy policy = JudgePolicy::from_json(stored->policy);
    policy.tolerance_scale = options.tolerance_scale;
    if (lacks_statistics(facts)) ++output.unscaled;
    SubmissionResult again = rejudged_result(result, facts, policy);
    for (auto& reason : again.judgement.reasons) reason = paths.relative(reason);
    for (auto& check : *again.case_checks) check.reason = paths.relative(check.reason);
    const std::string after(verdict_name(again.judgement.verdict));
    if (after != before) {
      ++output.changed;
      ++output.changes[before + " -> " + after];
      if (again.exec() && !again.speedup && !facts.timing) ++output.untimed_passes;
    }
    output.results.push_back(std::move(again));
  }

  output.summary = make_summary(output.results, original_summary.value("environment", json::object()));
  for (const char* carried : {"run_id", "speedup_baseline", "harness_errors"}) {
    if (original_summary.contains(carried)) output.summary[carried] = original_summary[carried];
  }
  // where the run is seen from the results, as any path they hold: relative
  std::error_code unknown;
  std::filesystem::create_directories(options.into, unknown);
  const std::filesystem::path from = std::filesystem::proximate(out, options.into, unknown);
  output.summary["rejudge"] = {{"from", unknown ? out.filename().string() : from.string()},
                               {"tolerance_scale", options.tolerance_scale},
                               {"changed", output.changed},
                               {"changes", output.changes},
                               {"kept", output.kept},
                               {"unscaled", output.unscaled},
                               {"untimed_passes", output.untimed_passes}};
  write_output(options.into, output);
  return output;
}

}  // namespace keval
