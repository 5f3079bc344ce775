// keval: judges GPU kernels written by language models.
#include <iostream>

#include "cli/commands.h"
#include "cli/parse_error.h"

int main(int argc, char** argv) {
  CLI::App app{"keval: evaluates model-written Triton kernels against a task suite"};
  app.set_version_flag("--version", std::string("keval ") + KEVAL_VERSION);
  app.require_subcommand(1);
  keval::CommandAction action;
  keval::add_run_command(app, action);
  keval::add_rejudge_command(app, action);
  keval::add_tasks_command(app, action);
  keval::add_validate_command(app, action);
  keval::add_mutate_command(app, action);
  keval::add_golden_command(app, action);
  keval::add_compare_judges_command(app, action);
  keval::add_published_times_command(app, action);
  keval::add_dataset_command(app, action);
  keval::add_predict_command(app, action);
  keval::add_sweep_command(app, action);
  keval::add_merge_command(app, action);
  keval::add_slurm_command(app, action);
  keval::add_serve_command(app, action);
  keval::add_generate_command(app, action);
  keval::add_compare_command(app, action);
  keval::add_code_metrics_command(app, action);
  keval::add_report_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return keval::report_parse_error(app, e, argc, argv, std::cerr);
  }
  try {
    return action ? action() : 2;
  } catch (const std::exception& e) {
    std::cerr << "keval: " << e.what() << "\n";
    return 1;
  }
}
