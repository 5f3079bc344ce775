// keval sweep: the goldens (and given submissions) over their tuning space, each variant a
// judged, timed evaluation and so a dataset record (docs/dataset.md, "Sweep").
#include <iostream>

#include "cli/commands.h"
#include "cli/dataset_tool.h"
#include "cli/unjudged.h"
#include "engine/session/run_session.h"
#include "report/result_table.h"
#include "submission/submission.h"
#include "suite/adapters/peer_source.h"

namespace keval {

void add_sweep_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("sweep", "time variants of goldens and submissions over their tuning constants");
  auto suite_dir = std::make_shared<std::string>();
  auto submissions = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto per_program = std::make_shared<int>(24);
  auto seed = std::make_shared<int>(17);
  auto no_golden = std::make_shared<bool>(false);
  auto options = std::make_shared<RunOptions>();
  auto no_sandbox = std::make_shared<bool>(false);
  auto judged = std::make_shared<bool>(false);
  cmd->add_option("--suite", *suite_dir, "suite folder (its tasks' golden.py are swept)")->required();
  cmd->add_option("--out", *out, "output folder: variants.jsonl and a keval run's results, summary, keval.db")->required();
  cmd->add_option("--submissions", *submissions, "also sweep these submissions (native JSONL)");
  cmd->add_option("--variants", *per_program, "variants per program, the program as is first (default 24)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", *seed, "seed of the variants drawn (default 17)");
  cmd->add_flag("--no-golden", *no_golden, "sweep only --submissions");
  cmd->add_flag("--judged", *judged,
                "judge every golden variant as a submission (three sandboxed jobs each) instead of "
                "many per sweep job");
  cmd->add_option("--tasks", options->tasks_glob, "only tasks matching these globs (comma-separated)");
  cmd->add_option("--device", options->device, "auto, cpu (Triton interpreter) or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--jobs", options->jobs, kJobsHelp)->check(CLI::Range(1, 256));
  cmd->add_option("--gpus", options->gpus, "CUDA devices to use, e.g. 0,1 (default: all)")->delimiter(',');
  cmd->add_option("--golden-from", options->golden_from, "reuse golden timings recorded by `keval golden record`");
  add_timing_limit_options(cmd, options.get());
  cmd->add_option("--timeout", options->timeout_s, "seconds per job before it is killed")->check(CLI::Range(1, 86400));
  cmd->add_option("--python", options->python, "Python interpreter for the runner (or KEVAL_PYTHON)");
  cmd->add_flag("--no-sandbox", *no_sandbox, "run jobs without uid switch, network isolation and rlimits");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(options->python);
      const auto folder = resolve_suite_folder(*suite_dir);
      Suite suite = Suite::load(folder);
      std::filesystem::create_directories(*out);
      const auto variants = std::filesystem::path(*out) / "variants.jsonl";
      std::vector<std::string> args = {"variants", "--suite", folder.string(), "--out", variants.string(),
                                       "--per-program", std::to_string(*per_program), "--seed", std::to_string(*seed)};
      if (!options->tasks_glob.empty()) args.insert(args.end(), {"--tasks", options->tasks_glob});
      if (!submissions->empty()) {
        std::filesystem::path given = *submissions;  // a peer's file (KIND:PATH) as native JSONL first
        if (auto peer = parse_peer_spec(*submissions)) {
          given = adapt_peer_submissions(*peer, parse_peer_spec(*suite_dir).value_or(PeerSpec{}));
        }
        args.insert(args.end(), {"--submissions", given.string()});
      }
      if (*no_golden) {
        if (submissions->empty()) throw std::runtime_error("--no-golden: give --submissions to sweep");
        args.push_back("--no-golden");
      }
      run_dataset_tool(args);
      RunOptions run = *options;
      run.out = *out;
      run.sandbox = !*no_sandbox;
      run.quick_correctness = true;
      // Variants of keval's own goldens are trusted code and share sweep jobs; a given
      // submission's variants are not, and each is judged in its own jobs (docs/trust.md).
      run.batch_variants = submissions->empty() && !*judged;
      if (run.batch_variants) run.no_baselines = true;
      run.submissions_label = "sweep:" + variants.string();
      run.suite_label = suite_label(*suite_dir);
      RunOutput output = run_session(suite, read_submissions(variants), run, std::cerr);
      print_result_table(std::cout, output.results, output.summary);
      std::cout << "wrote " << *out << "/variants.jsonl, results.jsonl, summary.json, keval.db\n";
      return report_unjudged(output, std::cerr);
    };
  });
}

}  // namespace keval
