// keval merge: the output folders of `keval run --shard I/N` become one
// (engine/results/merge_outputs.h).
#include <iostream>

#include "cli/commands.h"
#include "engine/results/merge_outputs.h"

namespace keval {

void print_merge_report(const MergeReport& report, const std::filesystem::path& out) {
  std::cout << "merged " << report.results << " results";
  if (report.duplicate_results) std::cout << " (" << report.duplicate_results << " duplicate lines dropped)";
  std::cout << ", " << report.evaluations << " evaluations into " << (out / "keval.db").string();
  if (report.duplicate_evaluations) std::cout << " (" << report.duplicate_evaluations << " already there)";
  std::cout << "\n";
  for (const auto& m : report.missing) std::cout << "missing or unfinished: shard " << m << "\n";
  std::cout << "wrote " << out.string() << "/results.jsonl, summary.json, keval.db\n";
}

void add_merge_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("merge", "merge the output folders of sharded runs (keval run --shard I/N)");
  auto options = std::make_shared<MergeOptions>();
  auto from = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("from", *from, "output folders of the shards")->required();
  cmd->add_option("--out", *out, "merged output folder")->required();
  cmd->add_flag("--partial", options->partial, "merge even when shards are missing or unfinished");
  cmd->callback([=, &action] {
    action = [=] {
      MergeOptions merge = *options;
      merge.out = *out;
      for (const auto& dir : *from) {
        if (std::filesystem::exists(dir) && std::filesystem::exists(*out) && std::filesystem::equivalent(dir, *out)) {
          throw std::runtime_error("--out " + *out + " is one of the folders to merge");
        }
        merge.from.emplace_back(dir);
      }
      print_merge_report(merge_outputs(merge), merge.out);
      return 0;
    };
  });
}

}  // namespace keval
