// keval mutate: mutants of each task's golden (runner/keval_mutate, Python's ast), judged as
// submissions of their task by the run's own machinery, and the kill rate of the task's cases
// (docs/mutation.md). A mutant that passes is a case the task lacks, or an equivalent program:
// the report runs each survivor through a wide differential check to tell which.
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/mutant_timeout.h"
#include "cli/unjudged.h"
#include "engine/runner/python_tool.h"
#include "engine/runner/run_interruption.h"
#include "engine/session/run_session.h"
#include "engine/session/warm_engine.h"
#include "suite/adapters/peer_source.h"
#include "suite/suite.h"

namespace keval {
namespace {

struct MutateOptions {
  std::string suite, out, operators;
  int equivalence_trials = 42;
  int mutant_timeout_s = 0;  // 0: each task's from its golden's job time (mutant_timeout.h)
  bool no_sandbox = false;
};

// The Python side's exit status as keval's: its 2 (bad input, already said in one line) is 1.
int tool_status(int status) { return status == 2 ? 1 : status; }

std::vector<std::string> generate_args(const Suite& suite, const std::string& glob, const MutateOptions& o) {
  std::vector<std::string> args = {"generate", "--out", o.out};
  for (const Task* task : suite.select(glob)) {
    args.insert(args.end(), {"--golden", task->name + "=" + task->golden_path().string()});
  }
  if (args.size() == 3) throw std::runtime_error("--tasks " + glob + ": no task of " + o.suite + " matches");
  if (!o.operators.empty()) args.insert(args.end(), {"--operators", o.operators});
  return args;
}

// Each task's mutant timeout: --mutant-timeout for every task, else from its golden's time.
std::map<std::string, int> decide_timeouts(const Suite& suite, const std::string& glob, const MutateOptions& o,
                                           const RunOutput& goldens) {
  std::map<std::string, int> timeouts;
  if (o.mutant_timeout_s > 0) {
    for (const Task* task : suite.select(glob)) timeouts[task->name] = o.mutant_timeout_s;
    return timeouts;
  }
  timeouts = mutant_timeouts(goldens.results);
  std::cerr << "keval: mutant timeout per job (" << kMutantTimeoutGoldenTimes << " x the golden's longest job, at least "
            << kMutantTimeoutFloorS << " s; --mutant-timeout to set):";
  for (const auto& [task, seconds] : timeouts) std::cerr << " " << task << " " << seconds << " s";
  std::cerr << (timeouts.empty() ? " none, no golden finished a job\n" : "\n");
  return timeouts;
}

}  // namespace

void add_mutate_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("mutate", "judge mutants of each task's golden: how many the task's cases kill");
  auto o = std::make_shared<MutateOptions>();
  auto run = std::make_shared<RunOptions>();
  cmd->add_option("--suite", o->suite, "suite folder")->required();
  cmd->add_option("--tasks", run->tasks_glob, "only tasks matching this glob");
  cmd->add_option("--out", o->out, "output folder (mutants.json, mutants.md, results.jsonl, keval.db)")->required();
  cmd->add_option("--device", run->device, "auto, cpu (Triton interpreter) or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--jobs", run->jobs, kJobsHelp)->check(CLI::Range(1, 256));
  cmd->add_option("--operators", o->operators, "only these operators, a comma list (python -m keval_mutate operators)");
  cmd->add_option("--python", run->python, "Python interpreter for the runner (or KEVAL_PYTHON)");
  cmd->add_option("--timeout", run->timeout_s, "seconds per job of the goldens' first run, and of a task whose golden "
                  "finished no job (default: the device's)")->check(CLI::Range(1, 86400));
  cmd->add_option("--mutant-timeout", o->mutant_timeout_s,
                  "seconds per job of a task's mutants (and its golden beside them); default: 20 x the "
                  "golden's longest job on this machine, at least 30")->check(CLI::Range(1, 86400));
  cmd->add_option("--seeds", run->seeds, "fresh seeds per case (at least 2)")->check(CLI::Range(2, 100));
  cmd->add_option("--equivalence-trials", o->equivalence_trials,
                  "trials of the differential check each survivor gets (CPU interpreter); 0: none")
      ->check(CLI::Range(0, 10000));
  cmd->add_flag("--no-sandbox", o->no_sandbox, "run jobs without uid switch, network isolation and rlimits");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(run->python);
      const Suite suite = Suite::load(resolve_suite_folder(o->suite));
      std::filesystem::create_directories(o->out);
      if (int status = run_python_tool("keval_mutate", generate_args(suite, run->tasks_glob, *o))) {
        return tool_status(status);
      }
      // The goldens run beside their mutants: a kill against a golden that fails here proves nothing.
      const std::vector<Submission> goldens = golden_submissions(suite, run->tasks_glob);
      std::vector<Submission> list = goldens;
      const auto mutants = std::filesystem::path(o->out) / "mutants.jsonl";
      if (std::filesystem::file_size(mutants) > 0) {
        for (Submission& mutant : read_submissions(mutants)) list.push_back(std::move(mutant));
      }
      RunOptions options = *run;
      options.out = o->out;
      options.timing = false;  // a mutant is killed or not by correctness alone
      options.sandbox = !o->no_sandbox;
      options.progress = true;
      options.submissions_label = "mutants of " + o->suite;
      options.suite_label = suite_label(o->suite);
      RunInterruption ctrl_c;  // Ctrl-C ends the jobs; what finished is stored and reported
      WarmEngine warm;         // the goldens' run starts the worker slots, the mutants' run reuses them
      RunOutput output;
      try {
        // The goldens alone first (stored, so a second run reuses them and decides the same):
        // their job times set how long each task's mutants may run.
        output = run_session(suite, goldens, options, std::cerr, &warm);
        if (run_interrupted()) return report_unjudged(output, std::cerr);
        options.task_timeout_s = decide_timeouts(suite, run->tasks_glob, *o, output);
        output = run_session(suite, list, options, std::cerr, &warm);
      } catch (const RunInterrupted&) {
        std::cerr << "keval: interrupted before any mutant was judged; nothing was written\n";
        return 130;
      }
      std::cout << "reused " << output.summary.value("resumed", size_t{0}) << " stored result(s) from "
                << o->out << "/keval.db\n" << std::flush;  // before the report's own lines
      const int unjudged = report_unjudged(output, std::cerr);
      // An interrupted run's report covers what was judged, marked partial, with no differential
      // check: Ctrl-C asked to stop, not to start minutes of trials.
      std::vector<std::string> report = {"report", "--out", o->out, "--equivalence-trials",
                                         std::to_string(o->equivalence_trials)};
      if (output.summary.value("interrupted", false)) report.push_back("--interrupted");
      const int status = tool_status(run_python_tool("keval_mutate", report));
      return unjudged ? unjudged : status;
    };
  });
}

}  // namespace keval
