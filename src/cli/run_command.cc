// keval run: evaluate submissions on a suite.
#include <iostream>

#include "cli/commands.h"
#include "cli/unjudged.h"
#include "common/out_folder.h"
#include "engine/resume/shard.h"
#include "engine/runner/run_interruption.h"
#include "engine/session/run_session.h"
#include "report/result_table.h"
#include "suite/adapters/peer_source.h"

namespace keval {

void add_run_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("run", "evaluate submissions on a suite");
  auto suite_dir = std::make_shared<std::string>();
  auto submissions = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto out = std::make_shared<std::string>();
  auto no_timing = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("--suite", *suite_dir, "suite folder")->required();
  cmd->add_option("--submissions", *submissions, "JSONL file, .py file, or folder of them")->required();
  cmd->add_option("--out", *out, "output folder (results.jsonl, summary.json, keval.db)")->required();
  cmd->add_option("--device", options->device, "auto, cpu (Triton interpreter) or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--tasks", options->tasks_glob, "only tasks matching this glob");
  cmd->add_option("--jobs", options->jobs, kJobsHelp)
      ->check(CLI::Range(1, 256));
  cmd->add_option("--gpus", options->gpus, "CUDA devices to use, e.g. 0,1 (default: all)")
      ->delimiter(',');
  add_baseline_option(cmd, options->baselines,
                      "time against golden (default), eager or compile; repeat for several, the first is the speedup baseline");
  cmd->add_option("--golden-from", options->golden_from,
                  "reuse golden timings recorded on this GPU by `keval golden record` (or set KEVAL_GOLDEN_DIR)");
  cmd->add_flag("--fresh-process", options->fresh_process_per_job,
                "benchmarks only: a new runner process for every job (no warm workers)");
  cmd->add_option("--python", options->python, "Python interpreter for the runner (or KEVAL_PYTHON)");
  cmd->add_option("--timeout", options->timeout_s, "seconds per job before it is killed")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--seeds", options->seeds, "fresh seeds per case (at least 2)")->check(CLI::Range(2, 100));
  cmd->add_option("--held-out", options->held_out,
                  "cases per task drawn from its [held_out] ranges with the run's secret seed, judged for "
                  "correctness only (default 2; 0: none)")
      ->check(CLI::Range(0, 100));
  cmd->add_flag("--no-timing", *no_timing, "judge correctness only");
  add_timing_limit_options(cmd, options.get());
  cmd->add_option("--min-own-share", options->min_own_share,
                  "library_fallback below this share of a call's GPU time in the submission's own "
                  "Triton kernels (CUDA; default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--quiet", *quiet, "print no table");
  cmd->add_option("--rerun", options->rerun,
                  "judge stored results again: all (the default value), verdicts (crash,timeout) or task globs")
      ->expected(0, 1)
      ->default_str("all");
  cmd->add_flag("--sanitize", options->sanitize,
                "also run each passing submission's small cases under compute-sanitizer memcheck (CUDA; unsandboxed)");
  options->code_metrics = "auto";
  cmd->add_option("--code-metrics", options->code_metrics,
                  "CodeBLEU against the golden and radon's maintainability index and complexity per "
                  "submission: auto (default: when submissions come from `keval generate`), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  auto no_sandbox = std::make_shared<bool>(false);
  cmd->add_flag("--no-sandbox", *no_sandbox, "run jobs without uid switch, network isolation and rlimits");
  auto shard = std::make_shared<std::string>();
  cmd->add_option("--shard", *shard, "I/N: only the submissions of shard I of N (by content hash; see keval merge)");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(options->python);
      Suite suite = Suite::load(resolve_suite_folder(*suite_dir));
      // A peer's submission file (KIND:PATH) is converted to native JSONL first.
      std::filesystem::path submissions_path = *submissions;
      if (auto peer = parse_peer_spec(*submissions)) {
        submissions_path = adapt_peer_submissions(*peer, parse_peer_spec(*suite_dir).value_or(PeerSpec{}));
      }
      std::vector<Submission> list = read_submissions(submissions_path);
      // after the inputs are read (a bad one leaves no folder behind), before anything is
      // written there (a shard's note, the store)
      make_out_folder(*out);
      if (!shard->empty()) {
        const Shard slice = parse_shard(*shard);
        const size_t total = list.size();
        const std::string fingerprint = submissions_fingerprint(list);
        list = select_shard(list, slice);
        write_shard_file(*out, slice, *submissions, fingerprint, list.size(), total);
      }
      RunOptions run = *options;
      run.out = *out;
      run.timing = !*no_timing;
      run.sandbox = !*no_sandbox;
      run.submissions_label = *submissions;
      run.suite_label = suite_label(*suite_dir);
      RunInterruption ctrl_c;  // Ctrl-C ends the jobs, then what finished is written
      RunOutput output;
      try {
        output = run_session(suite, list, run, std::cerr);
      } catch (const RunInterrupted&) {  // while starting: no job ran
        std::cerr << "keval: interrupted before any submission was judged; nothing was written\n";
        return 130;
      }
      if (!*quiet) print_result_table(std::cout, output.results, output.summary);
      const size_t reused = output.summary.value("resumed", size_t{0});
      std::cout << "reused " << reused << " stored result(s) from " << *out << "/keval.db"
                << (reused ? " (--rerun judges them again)" : "") << "\n";
      if (const size_t earlier = output.summary.value("earlier_results", size_t{0})) {
        std::cout << "kept " << earlier << " earlier result(s) of tasks outside --tasks in results.jsonl "
                  << "and summary.json\n";
      }
      std::cout << "wrote " << *out << "/results.jsonl, summary.json, keval.db; verdicts, fast_p and pass@k: "
                << "docs/judging.md; an HTML report: keval report " << *out << " --out report.html\n";
      return report_unjudged(output, std::cerr);
    };
  });
}

}  // namespace keval
