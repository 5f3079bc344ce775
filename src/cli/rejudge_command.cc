// keval rejudge OUT: a finished run's stored facts judged again under a scaled tolerance
// (engine/results/rejudge.h), with no GPU and no runner.
#include <cmath>
#include <iostream>

#include "cli/commands.h"
#include "engine/results/rejudge.h"
#include "report/result_table.h"
#include "store/store.h"

namespace keval {
namespace {

// Bad input exits 2, apart from a harness failure (1), so a script can tell them apart.
constexpr int kBadInput = 2;

std::optional<double> positive_number(const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value) && value > 0) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

void print_account(std::ostream& out, const RejudgeOutput& output, const RejudgeOptions& options,
                   const std::string& scale) {
  out << "rejudged " << output.results.size() << " result(s) of " << options.out.string()
      << " with every task tolerance (atol and rtol) x " << scale << ": " << output.changed << " verdict(s) changed";
  std::string changes;
  for (const auto& [change, n] : output.changes) changes += (changes.empty() ? "" : ", ") + change + ": " + std::to_string(n);
  out << (changes.empty() ? "" : " (" + changes + ")") << "\n";
  if (output.untimed_passes) {
    out << output.untimed_passes << " result(s) pass now but were never timed (only a passing submission is): "
        << "no speedup (a keval run with the tolerance changed in task.toml evaluates and times them)\n";
  }
  if (output.unscaled) {
    out << output.unscaled << " result(s) were stored without per-output error statistics (max_tol_ratio, "
        << "by an earlier keval): judged again at the task's own tolerance\n";
  }
  if (output.kept) {
    out << output.kept << " result(s) kept as stored: no facts or judge policy to judge them from "
        << "(bad submissions, or stored by a keval that did not keep the policy)\n";
  }
  out << "wrote " << output.into.string() << "/results.jsonl and summary.json; " << options.out.string()
      << "'s own results are unchanged\n";
}

}  // namespace

void add_rejudge_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand(
      "rejudge", "judge a finished run's stored facts again with every tolerance scaled (no GPU, no runner)");
  auto out = std::make_shared<std::string>();
  auto scale = std::make_shared<std::string>("1");
  auto into = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  // OUT and the scale are checked here, not by CLI11, so that bad input exits 2 with one line.
  cmd->add_option("out", *out, "the --out folder of a finished keval run (results.jsonl, keval.db)");
  cmd->add_option("--tolerance-scale", *scale,
                  "multiply every task's atol and rtol by S > 0 (default 1: the policy the run used)");
  cmd->add_option("--into", *into, "write results.jsonl and summary.json here (default OUT/rejudged-xS)");
  cmd->add_flag("--quiet", *quiet, "print no table");
  cmd->callback([=, &action] {
    action = [=] {
      if (out->empty()) {
        std::cerr << "keval rejudge: give the --out folder of a finished run (keval rejudge OUT --tolerance-scale S)\n";
        return kBadInput;
      }
      const auto parsed = positive_number(*scale);
      if (!parsed) {
        std::cerr << "keval rejudge: --tolerance-scale " << *scale << ": expected a finite number > 0\n";
        return kBadInput;
      }
      RejudgeOptions options{*out, *parsed, *into};
      RejudgeOutput output;
      try {
        output = rejudge_run(options);
      } catch (const RejudgeInputError& e) {
        std::cerr << "keval rejudge: " << e.what() << "\n";
        return kBadInput;
      } catch (const StoreError& e) {
        std::cerr << "keval rejudge: " << e.what() << "\n";
        return kBadInput;
      }
      if (!*quiet) print_result_table(std::cout, output.results, output.summary);
      print_account(std::cout, output, options, *scale);
      return 0;
    };
  });
}

}  // namespace keval
