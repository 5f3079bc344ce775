// keval slurm submit|status|resubmit|merge: a sharded evaluation as a Slurm job array
// (src/slurm/, docs/scale.md).
#include <iostream>

#include "cli/commands.h"
#include "engine/results/merge_outputs.h"
#include "slurm/array_submission.h"
#include "submission/submission.h"
#include "suite/adapters/peer_source.h"

namespace keval {
namespace {

// A folder or file argument as the array tasks must see it (absolute); a peer spec as given.
std::string absolute_arg(const std::string& arg) {
  if (parse_peer_spec(arg)) return arg;
  if (!std::filesystem::exists(arg)) throw std::runtime_error(arg + ": no such file or folder");
  return std::filesystem::absolute(arg).lexically_normal().string();
}

void print_statuses(const std::vector<ShardStatus>& statuses) {
  size_t done = 0;
  for (const auto& s : statuses) {
    std::cout << "shard " << s.index << "/" << statuses.size() << "  " << s.state << "  " << s.judged << " judged\n";
    done += s.state == "done";
  }
  std::cout << done << " of " << statuses.size() << " shards done";
  if (done == statuses.size()) std::cout << ": keval slurm merge";
  else if (!shards_to_resubmit(statuses).empty()) std::cout << "; stopped shards: keval slurm resubmit";
  std::cout << "\n";
}

std::vector<ShardStatus> current_statuses(const ArrayJob& job) {
  ProcessRunner runner;
  SlurmClient slurm(runner);
  return shard_statuses(job, slurm.queued(job.job_ids));
}

// Options each array task's `keval run` gets as given.
struct RunPassThrough {
  int jobs = 0;
  int timeout = 0;
  int seeds = 0;
  std::string tasks;
  std::string python;
  bool no_timing = false;
  bool no_sandbox = false;
};

void add_run_pass_through(CLI::App& cmd, RunPassThrough& run) {
  cmd.add_option("--jobs", run.jobs, "worker slots per GPU in each task (keval run --jobs)")->check(CLI::Range(1, 256));
  cmd.add_option("--tasks", run.tasks, "only tasks matching this glob");
  cmd.add_option("--timeout", run.timeout, "seconds per job (keval run --timeout)")->check(CLI::Range(1, 86400));
  cmd.add_option("--seeds", run.seeds, "fresh seeds per case")->check(CLI::Range(2, 100));
  cmd.add_option("--python", run.python, "Python interpreter for the runner on the nodes (or KEVAL_PYTHON)");
  cmd.add_flag("--no-timing", run.no_timing, "judge correctness only");
  cmd.add_flag("--no-sandbox", run.no_sandbox, "run jobs without uid switch, network isolation and rlimits");
}

void append_run_pass_through(const RunPassThrough& run, std::vector<std::string>& args) {
  if (run.jobs > 0) args.insert(args.end(), {"--jobs", std::to_string(run.jobs)});
  if (!run.tasks.empty()) args.insert(args.end(), {"--tasks", run.tasks});
  if (run.timeout > 0) args.insert(args.end(), {"--timeout", std::to_string(run.timeout)});
  if (run.seeds > 0) args.insert(args.end(), {"--seeds", std::to_string(run.seeds)});
  if (run.no_timing) args.push_back("--no-timing");
  if (run.no_sandbox) args.push_back("--no-sandbox");
}

void add_submit(CLI::App& parent, CommandAction& action) {
  auto* cmd = parent.add_subcommand("submit", "write and submit a job array, one sharded keval run per task");
  auto job = std::make_shared<ArrayJob>();
  auto out = std::make_shared<std::string>();
  auto device = std::make_shared<std::string>("auto");
  auto gpus = std::make_shared<int>(-1);
  auto run = std::make_shared<RunPassThrough>();
  cmd->add_option("--suite", job->suite, "suite folder (or KIND:PATH)")->required();
  cmd->add_option("--submissions", job->submissions, "JSONL file, .py file, or folder of them")->required();
  cmd->add_option("--out", *out, "output folder: slurm/, shards/I/, then the merged results")->required();
  cmd->add_option("--shards", job->shards, "number of shards = array tasks")->required()->check(CLI::Range(1, 100000));
  cmd->add_option("--gpus-per-task", *gpus, "GPUs per array task (default 1, 0 with --device cpu)")->check(CLI::Range(0, 64));
  cmd->add_option("--cpus-per-task", job->cpus_per_task, "CPUs per array task (default: Slurm's)")->check(CLI::Range(0, 4096));
  cmd->add_option("--partition", job->partition, "Slurm partition");
  cmd->add_option("--time", job->time, "time limit per array task (Slurm's --time, e.g. 2:00:00)");
  cmd->add_option("--max-parallel", job->max_parallel, "array tasks running at once (%K; default: no limit)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--job-name", job->job_name, "Slurm job name (default keval)");
  cmd->add_option("--device", *device, "auto, cpu or cuda, for every task")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  add_run_pass_through(*cmd, *run);
  cmd->callback([=, &action] {
    action = [=] {
      ArrayJob array = *job;
      array.out = std::filesystem::absolute(*out).lexically_normal();
      // A record without job ids is a submission sbatch refused: it may be tried again.
      if (std::filesystem::exists(array.record_path()) && !ArrayJob::load(array.out).job_ids.empty()) {
        throw std::runtime_error(array.record_path().string() + " exists: this array was submitted already "
                                 "(keval slurm status|resubmit|merge --out " + *out + ")");
      }
      array.keval = std::filesystem::read_symlink("/proc/self/exe").string();
      array.suite = absolute_arg(array.suite);
      array.submissions = absolute_arg(array.submissions);
      if (!parse_peer_spec(array.submissions)) {
        const size_t n = read_submissions(array.submissions).size();
        if (static_cast<size_t>(array.shards) > n) {
          throw std::runtime_error("--shards " + std::to_string(array.shards) + ": more shards than the " +
                                   std::to_string(n) + " submissions in " + array.submissions +
                                   " (each array task should judge many candidates)");
        }
      }
      array.gpus_per_task = *gpus >= 0 ? *gpus : *device == "cpu" ? 0 : 1;
      array.run_args = {"--device", *device};
      append_run_pass_through(*run, array.run_args);
      if (const char* python = std::getenv("KEVAL_PYTHON"); python && *python) array.python = python;
      if (!run->python.empty()) array.python = run->python;
      std::vector<int> all;
      for (int i = 0; i < array.shards; ++i) all.push_back(i);
      ProcessRunner runner;
      SlurmClient slurm(runner);
      const std::string id = submit_shards(array, slurm, all);
      std::cout << "submitted job array " << id << " (" << array.shards << " shards) from "
                << array.script_path().string() << "\n"
                << "then: keval slurm status --out " << *out << "; keval slurm merge --out " << *out << "\n";
      return 0;
    };
  });
}

void add_status(CLI::App& parent, CommandAction& action) {
  auto* cmd = parent.add_subcommand("status", "each shard's state: done, pending, running or stopped");
  auto out = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--out", *out, "the array's output folder")->required();
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->callback([=, &action] {
    action = [=] {
      const auto statuses = current_statuses(ArrayJob::load(*out));
      if (*json) std::cout << statuses_json(statuses).dump() << "\n";
      else print_statuses(statuses);
      return 0;
    };
  });
}

void add_resubmit(CLI::App& parent, CommandAction& action) {
  auto* cmd = parent.add_subcommand("resubmit", "submit the stopped shards again (they resume)");
  auto out = std::make_shared<std::string>();
  cmd->add_option("--out", *out, "the array's output folder")->required();
  cmd->callback([=, &action] {
    action = [=] {
      ArrayJob array = ArrayJob::load(*out);
      ProcessRunner runner;
      SlurmClient slurm(runner);
      const auto indexes = shards_to_resubmit(shard_statuses(array, slurm.queued(array.job_ids)));
      if (indexes.empty()) {
        std::cout << "nothing to resubmit: every shard is done or queued\n";
        return 0;
      }
      const std::string id = submit_shards(array, slurm, indexes);
      std::cout << "resubmitted " << indexes.size() << " shard(s) as job array " << id << " ("
                << array_spec(indexes, 0) << ")\n";
      return 0;
    };
  });
}

void add_merge(CLI::App& parent, CommandAction& action) {
  auto* cmd = parent.add_subcommand("merge", "merge the shards into OUT (results.jsonl, summary.json, keval.db)");
  auto out = std::make_shared<std::string>();
  auto partial = std::make_shared<bool>(false);
  cmd->add_option("--out", *out, "the array's output folder")->required();
  cmd->add_flag("--partial", *partial, "merge even when shards are unfinished");
  cmd->callback([=, &action] {
    action = [=] {
      const ArrayJob array = ArrayJob::load(*out);
      MergeOptions merge;
      merge.out = *out;
      merge.partial = *partial;
      for (int i = 0; i < array.shards; ++i) {
        if (std::filesystem::exists(array.shard_dir(i) / "results.jsonl")) merge.from.push_back(array.shard_dir(i));
        else if (!*partial) throw std::runtime_error("shard " + std::to_string(i) + "/" + std::to_string(array.shards) +
                                                     " has not started (" + array.shard_dir(i).string() +
                                                     "): keval slurm status --out " + *out);
      }
      print_merge_report(merge_outputs(merge), merge.out);
      return 0;
    };
  });
}

}  // namespace

void add_slurm_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("slurm", "sharded evaluation as a Slurm job array");
  cmd->require_subcommand(1);
  add_submit(*cmd, action);
  add_status(*cmd, action);
  add_resubmit(*cmd, action);
  add_merge(*cmd, action);
}

}  // namespace keval
