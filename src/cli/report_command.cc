// keval report: one self-contained HTML page (and a Markdown twin) from the OUT folders of runs.
#include <filesystem>

#include "cli/commands.h"
#include "engine/runner/python_tool.h"

namespace keval {

void add_report_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("report", "write an HTML report (and report.md) of finished runs");
  auto outs = std::make_shared<std::vector<std::string>>();
  auto html = std::make_shared<std::string>();
  auto markdown = std::make_shared<std::string>();
  auto title = std::make_shared<std::string>("keval report");
  auto python = std::make_shared<std::string>();
  cmd->add_option("outs", *outs, "the --out folders of keval runs (several: a leaderboard)")->required();
  cmd->add_option("--out", *html, "the HTML file to write (self-contained, opens offline)")->required();
  cmd->add_option("--md", *markdown, "the Markdown file to write (default: the HTML file's name with .md)");
  cmd->add_option("--title", *title, "the report's title");
  cmd->add_option("--python", *python, "Python with matplotlib (default: the runner's)");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(*python);
      std::string md = *markdown;
      if (md.empty()) md = std::filesystem::path(*html).replace_extension(".md").string();
      std::vector<std::string> args = *outs;
      for (const std::string& arg : {std::string("--html"), *html, std::string("--md"), md,
                                     std::string("--title"), *title}) {
        args.push_back(arg);
      }
      // The tool prints its own one-line `keval:` error; its status 2 (bad input) is keval's 1.
      return run_python_tool("keval_report", args) == 0 ? 0 : 1;
    };
  });
}

}  // namespace keval
