#pragma once
// The subcommands of `keval`; each registers its options and returns its exit code.
#include <filesystem>
#include <functional>

#include <CLI/CLI.hpp>

namespace keval {

using CommandAction = std::function<int()>;

// Each adds a subcommand to `app` and sets `action` when that subcommand is chosen.
void add_run_command(CLI::App& app, CommandAction& action);
void add_tasks_command(CLI::App& app, CommandAction& action);
void add_validate_command(CLI::App& app, CommandAction& action);
void add_golden_command(CLI::App& app, CommandAction& action);
void add_compare_judges_command(CLI::App& app, CommandAction& action);
void add_published_times_command(CLI::App& app, CommandAction& action);
void add_dataset_command(CLI::App& app, CommandAction& action);
void add_predict_command(CLI::App& app, CommandAction& action);
void add_sweep_command(CLI::App& app, CommandAction& action);
void add_merge_command(CLI::App& app, CommandAction& action);
void add_slurm_command(CLI::App& app, CommandAction& action);
void add_serve_command(CLI::App& app, CommandAction& action);

// The one-paragraph account of a merge (keval merge, keval slurm merge).
void print_merge_report(const struct MergeReport& report, const std::filesystem::path& out);
void add_generate_command(CLI::App& app, CommandAction& action);
void add_compare_command(CLI::App& app, CommandAction& action);
void add_code_metrics_command(CLI::App& app, CommandAction& action);
void add_report_command(CLI::App& app, CommandAction& action);
void add_rejudge_command(CLI::App& app, CommandAction& action);
void add_mutate_command(CLI::App& app, CommandAction& action);

// The suite's name in dataset records: a peer's kind (`kernelbench:PATH` -> "kernelbench"),
// else the folder's name ("suites/keval" -> "keval").
std::string suite_label(const std::string& suite_arg);

// --python also for what runs before the run's own runner (a peer suite's adapter): it becomes
// KEVAL_PYTHON for this process and its children. Nothing when empty.
void use_python(const std::string& python);

// --max-seconds, --max-samples and --min-samples of run, validate and sweep
// (engine/settings/run_options.h's RunOptions).
void add_timing_limit_options(CLI::App* cmd, struct RunOptions* options);

// --baseline of run and validate: a comma list of golden, eager, compile into `baselines`.
void add_baseline_option(CLI::App* cmd, std::vector<std::string>& baselines, const std::string& help);

// The goldens of the selected tasks, as submissions of their own tasks.
std::vector<struct Submission> golden_submissions(const class Suite& suite, const std::string& glob);

}  // namespace keval
