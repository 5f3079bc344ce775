// keval golden record: time every golden once on this GPU and keep the medians for later runs.
#include <iostream>

#include "cli/commands.h"
#include "cli/unjudged.h"
#include "engine/results/golden_record.h"
#include "engine/session/run_session.h"
#include "submission/submission.h"
#include "suite/adapters/peer_source.h"

namespace keval {

void add_golden_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("golden", "record golden kernel timings for reuse (--golden-from)");
  cmd->require_subcommand(1);
  auto* record = cmd->add_subcommand("record", "time every golden on this GPU and write a record");
  auto suite_dir = std::make_shared<std::string>();
  auto file = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  record->add_option("--suite", *suite_dir, "suite folder")->required();
  record->add_option("--file", *file, "the record to write (default: $KEVAL_GOLDEN_DIR/<gpu,driver,torch,triton>.json)");
  record->add_option("--out", options->out, "output folder of the run (default: a temporary folder)");
  record->add_option("--device", options->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  record->add_option("--tasks", options->tasks_glob, "only tasks matching this glob");
  record->add_option("--jobs", options->jobs, "worker slots per GPU")->check(CLI::Range(1, 256));
  record->add_option("--python", options->python, "Python interpreter for the runner");
  record->callback([=, &action] {
    action = [=] {
      use_python(options->python);
      Suite suite = Suite::load(resolve_suite_folder(*suite_dir));
      RunOptions run = *options;
      if (run.out.empty()) run.out = std::filesystem::temp_directory_path() / ("keval-golden-" + std::to_string(::getpid()));
      run.no_baselines = true;
      run.submissions_label = "golden record of " + *suite_dir;
      RunOutput output = run_session(suite, golden_submissions(suite, run.tasks_glob), run, std::cerr);
      std::map<std::string, int> versions;
      for (const auto& task : suite.tasks()) versions[task.name] = task.version;
      const auto& environment = output.summary["environment"];
      std::filesystem::path target = *file;
      if (target.empty()) {
        const char* dir = std::getenv("KEVAL_GOLDEN_DIR");
        if (!dir || !*dir) throw std::runtime_error("golden record: give --file or set KEVAL_GOLDEN_DIR");
        target = std::filesystem::path(dir) / GoldenRecord::file_name_for(environment);
      }
      GoldenRecord::from_results(output.results, environment, versions).save(target);
      size_t failed = 0;
      for (const auto& r : output.results) failed += !r.exec();
      std::cout << "wrote " << target.string() << " (" << output.results.size() - failed << " goldens timed";
      if (failed) std::cout << ", " << failed << " failed and left out";
      std::cout << ")\n";
      if (int code = report_unjudged(output, std::cerr)) return code;
      return failed ? 1 : 0;
    };
  });
}

}  // namespace keval
