// keval compare OUT...: models or runs side by side (report/comparison.h).
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "report/comparison.h"

namespace keval {

void add_compare_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("compare", "compare models or runs: pass@k, fast_p, speedup, code metrics, per task");
  auto runs = std::make_shared<std::vector<std::string>>();
  auto format = std::make_shared<std::string>("markdown");
  auto out = std::make_shared<std::string>();
  auto json_out = std::make_shared<std::string>();
  cmd->add_option("runs", *runs, "keval run output folders (or their results.jsonl)")->required()->expected(1, -1);
  cmd->add_option("--format", *format, "markdown (default) or json, printed")->check(CLI::IsMember({"markdown", "json"}));
  cmd->add_option("--out", *out, "write the printed table to this file instead");
  cmd->add_option("--json", *json_out, "also write the comparison as JSON to this file");
  cmd->callback([=, &action] {
    action = [=] {
      std::vector<std::filesystem::path> paths(runs->begin(), runs->end());
      const auto comparison = comparison_json(load_compared_entries(paths));
      const std::string text = *format == "json" ? comparison.dump(2) + "\n" : comparison_markdown(comparison);
      if (!json_out->empty()) {
        std::ofstream file(*json_out);
        file << comparison.dump(2) << "\n";
        if (!file) throw std::runtime_error(*json_out + ": cannot write");
      }
      if (out->empty()) {
        std::cout << text;
      } else {
        std::ofstream file(*out);
        file << text;
        if (!file) throw std::runtime_error(*out + ": cannot write");
      }
      return 0;
    };
  });
}

}  // namespace keval
