// keval validate: every task file parses and every golden kernel passes its own task.
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/unjudged.h"
#include "engine/session/run_session.h"
#include "report/result_table.h"
#include "report/status_report.h"
#include "report/status_sources.h"
#include "submission/content_hash.h"
#include "submission/file_text.h"
#include "suite/adapters/peer_source.h"

namespace keval {

std::vector<Submission> golden_submissions(const Suite& suite, const std::string& glob) {
  std::vector<Submission> goldens;
  for (const Task* task : suite.select(glob)) {
    goldens.push_back(usable_submission(task->name, read_file_text(task->golden_path()),
                                        "golden:" + task->name, task->golden_path().string()));
  }
  return goldens;
}

void add_validate_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("validate", "check the suite: task files and golden kernels");
  auto suite_dir = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto out = std::make_shared<std::string>();
  auto no_run = std::make_shared<bool>(false);
  cmd->add_option("--suite", *suite_dir, "suite folder")->required();
  cmd->add_option("--out", *out, "output folder (default: a temporary folder)");
  cmd->add_option("--device", options->device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--tasks", options->tasks_glob, "only tasks matching this glob");
  cmd->add_option("--jobs", options->jobs, "worker slots")->check(CLI::Range(1, 256));
  cmd->add_option("--python", options->python, "Python interpreter for the runner");
  cmd->add_flag("--files-only", *no_run, "check task files only; run no kernel");
  auto status = std::make_shared<std::string>();
  cmd->add_option("--status", *status,
                  "write a STATUS.md of golden times, efficiency and speedups over eager/torch.compile");
  auto baselines = std::make_shared<std::vector<std::string>>();
  add_baseline_option(cmd, *baselines,
                      "time the goldens against these (default eager; with --status eager,compile); the "
                      "first is the speedup baseline, the rest go to cases[].baseline_ms");
  cmd->add_option("--timeout", options->timeout_s, "seconds per job")->check(CLI::Range(1, 86400));
  cmd->add_option("--held-out", options->held_out,
                  "cases per task drawn from its [held_out] ranges, correctness only (default 2; 0: none)")
      ->check(CLI::Range(0, 100));
  add_timing_limit_options(cmd, options.get());
  auto no_timing = std::make_shared<bool>(false);
  cmd->add_flag("--no-timing", *no_timing, "check correctness only");
  auto from = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--from", *from,
                  "with --status: write it from the results.jsonl of earlier validate runs (later "
                  "files win per task) instead of running");
  auto summary_file = std::make_shared<std::string>();
  cmd->add_option("--summary", *summary_file,
                  "with --from: a summary.json of one of those runs, for the GPU, versions and ceilings");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(options->python);
      Suite suite = Suite::load(resolve_suite_folder(*suite_dir));
      std::cout << suite.tasks().size() << " task files are valid\n";
      if (*no_run) return 0;
      if (!from->empty()) {
        if (status->empty()) throw std::runtime_error("--from: give --status FILE to write");
        StatusSources sources = read_status_sources(*from, *summary_file);
        std::ofstream file(*status);
        write_status_report(file, suite, sources.results, sources.summary, sources.note);
        std::cout << "wrote " << *status << " from " << sources.results.size() << " results\n";
        return 0;
      }
      std::vector<Submission> goldens = golden_submissions(suite, options->tasks_glob);
      RunOptions run = *options;
      run.out = out->empty() ? std::filesystem::temp_directory_path() /
                                   ("keval-validate-" + std::to_string(::getpid()))
                             : std::filesystem::path(*out);
      run.submissions_label = "goldens of " + *suite_dir;
      // A golden is its own baseline: compare it with PyTorch instead, unless asked (an A/A of
      // the golden in the guest against itself in the warden: --baseline golden).
      if (!baselines->empty()) {
        run.baselines = *baselines;
      } else {
        run.baselines = status->empty() ? std::vector<std::string>{"eager"}
                                        : std::vector<std::string>{"eager", "compile"};
      }
      run.time_largest_case_only = !status->empty();
      run.timing = !*no_timing;
      RunOutput output = run_session(suite, goldens, run, std::cerr);
      print_result_table(std::cout, output.results, output.summary);
      if (!status->empty()) {
        std::ofstream file(*status);
        write_status_report(file, suite, output.results, output.summary, "");
        std::cout << "wrote " << *status << "\n";
      }
      if (int code = report_unjudged(output, std::cerr)) return code;
      size_t failed = 0;
      for (const auto& r : output.results) failed += !r.exec();
      if (failed) {
        std::cerr << "keval: " << failed << " golden kernel(s) failed their task\n";
        return 1;
      }
      std::cout << "every golden kernel passes (" << output.results.size() << " tasks, "
                << output.summary["environment"].value("device_mode", "") << ")\n";
      return 0;
    };
  });
}

}  // namespace keval
