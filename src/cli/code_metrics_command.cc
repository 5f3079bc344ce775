// keval code-metrics: CodeBLEU against the golden and radon's maintainability index and
// complexity of submissions, without running them (a peer's published outputs; docs/generate.md).
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "engine/session/code_metrics.h"
#include "report/generation_summary.h"
#include "suite/adapters/peer_source.h"

namespace keval {

void add_code_metrics_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("code-metrics", "CodeBLEU, maintainability index and complexity of submissions (nothing runs)");
  auto suite_dir = std::make_shared<std::string>();
  auto submissions = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto python = std::make_shared<std::string>();
  cmd->add_option("--suite", *suite_dir, "suite folder or KIND:CHECKOUT")->required();
  cmd->add_option("--submissions", *submissions, "JSONL, .py, folder, or a peer's KIND:FILE")->required();
  cmd->add_option("--out", *out, "write one JSON line per submission here (id, task, code_metrics)");
  cmd->add_option("--python", *python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(*python);
      const Suite suite = Suite::load(resolve_suite_folder(*suite_dir));
      std::filesystem::path path = *submissions;
      if (auto peer = parse_peer_spec(*submissions)) {
        path = adapt_peer_submissions(*peer, parse_peer_spec(*suite_dir).value_or(PeerSpec{}));
      }
      const std::vector<Submission> list = read_submissions(path);
      std::vector<SubmissionResult> results(list.size());
      std::vector<const Submission*> sources;
      for (size_t i = 0; i < list.size(); ++i) {
        results[i].id = list[i].id;
        results[i].task = list[i].task;
        sources.push_back(&list[i]);
      }
      const auto work = std::filesystem::temp_directory_path() / ("keval-code-metrics-" + std::to_string(::getpid()));
      add_code_metrics(results, sources, suite, work, std::cerr);
      std::filesystem::remove_all(work);
      if (!out->empty()) {
        std::ofstream file(*out);
        for (const auto& r : results) file << nlohmann::json{{"id", r.id}, {"task", r.task}, {"code_metrics", r.code_metrics}}.dump() << "\n";
        if (!file) throw std::runtime_error(*out + ": cannot write");
      }
      std::vector<const SubmissionResult*> all;
      for (const auto& r : results) all.push_back(&r);
      nlohmann::json summary = code_metric_means(all);
      summary["n"] = results.size();
      std::cout << summary.dump(2) << "\n";
      return 0;
    };
  });
}

}  // namespace keval
