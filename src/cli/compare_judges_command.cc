// keval compare-judges: keval's verdicts on a peer's submissions beside the peer's own criterion;
// keval published-times: a peer's published golden times beside keval's measurement.
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "suite/adapters/peer_source.h"

namespace keval {

void add_compare_judges_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand(
      "compare-judges",
      "keval's verdicts beside what the peer's own harness would have said (tritonbench-g|t, kernelbenchx, kernelbench)");
  auto suite = std::make_shared<std::string>();
  auto submissions = std::make_shared<std::string>();
  auto python = std::make_shared<std::string>();
  auto options = std::make_shared<JudgeComparison>();
  cmd->add_option("--suite", *suite, "the peer's checkout, KIND:PATH (as given to keval run)")->required();
  cmd->add_option("--submissions", *submissions, "the peer's submissions, KIND:FILE (as given to keval run)")->required();
  cmd->add_option("--results", options->results, "results.jsonl of the keval run on them")->required();
  cmd->add_option("--out", options->report, "the JSON report to write")->required();
  cmd->add_option("--device", options->device, "where the peer's scripts run: auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--jobs", options->jobs, "scripts run at once")->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", options->timeout_s, "seconds per script")->check(CLI::Range(1, 86400));
  cmd->add_option("--deadline", options->deadline_s,
                  "seconds the whole comparison may take (default: no limit); scripts not run by then are skipped and counted")
      ->check(CLI::Range(0, 604800));
  cmd->add_option("--python", *python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([=, &action] {
    action = [=] {
      auto peer_suite = parse_peer_spec(*suite);
      auto peer_submissions = parse_peer_spec(*submissions);
      if (!peer_suite) throw std::runtime_error("--suite " + *suite + ": expected KIND:PATH (tritonbench-g, tritonbench-t, kernelbenchx, kernelbench)");
      if (!peer_submissions) throw std::runtime_error("--submissions " + *submissions + ": expected KIND:FILE");
      use_python(*python);
      compare_peer_judges(*peer_submissions, *peer_suite, *options);
      std::cout << "wrote " << options->report.string() << "\n";
      return 0;
    };
  });
}

void add_published_times_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand(
      "published-times",
      "KernelBenchX's published golden times (metrics/golden_results/<gpu>) beside keval's measurement of the same inputs");
  auto suite = std::make_shared<std::string>();
  auto results = std::make_shared<std::filesystem::path>();
  auto gpu = std::make_shared<std::string>();
  auto out = std::make_shared<std::filesystem::path>();
  auto python = std::make_shared<std::string>();
  cmd->add_option("--suite", *suite, "the KernelBenchX checkout, kernelbenchx:PATH")->required();
  cmd->add_option("--results", *results, "results.jsonl of a keval run on its tasks (timed on a GPU)")->required();
  cmd->add_option("--gpu", *gpu, "golden_results folder to show, e.g. h800 (default: the run's GPU)");
  cmd->add_option("--out", *out, "also write the rows as JSON here");
  cmd->add_option("--python", *python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([=, &action] {
    action = [=] {
      auto peer_suite = parse_peer_spec(*suite);
      if (!peer_suite) throw std::runtime_error("--suite " + *suite + ": expected kernelbenchx:PATH");
      use_python(*python);
      show_published_times(*peer_suite, *results, *gpu, *out);
      return 0;
    };
  });
}

}  // namespace keval
