#include <gtest/gtest.h>

#include <fstream>

#include "common/scratch_dir_for_test.h"
#include "slurm/array_submission.h"

namespace keval {
namespace {

// Answers each command with the next canned result and remembers what was asked.
class FakeRunner : public CommandRunner {
 public:
  std::vector<std::vector<std::string>> calls;
  std::vector<CommandResult> answers;
  CommandResult run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    CommandResult r = answers.empty() ? CommandResult{} : answers.front();
    if (!answers.empty()) answers.erase(answers.begin());
    return r;
  }
};

ArrayJob four_shards(const std::filesystem::path& out) {
  ArrayJob job;
  job.keval = "/opt/keval";
  job.suite = "/suites/keval";
  job.submissions = "/data/it's.jsonl";
  job.out = out;
  job.shards = 4;
  job.max_parallel = 2;
  job.gpus_per_task = 1;
  job.partition = "gpu";
  job.time = "1:00:00";
  job.run_args = {"--device", "cuda"};
  return job;
}

TEST(SlurmTest, ArraySpecIsARangeWhenContiguousElseAList) {
  EXPECT_EQ(array_spec({0, 1, 2, 3}, 2), "0-3%2");
  EXPECT_EQ(array_spec({1, 3}, 0), "1,3");
  EXPECT_EQ(array_spec({2}, 0), "2");
}

TEST(SlurmTest, ScriptRunsTheTasksShardIntoItsOwnFolderWithTheRequestedResources) {
  ScratchDir dir;
  const std::string script = array_script(four_shards(dir.path()));
  EXPECT_NE(script.find("#SBATCH --gpus-per-task=1"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --partition=gpu"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --time=1:00:00"), std::string::npos);
  EXPECT_NE(script.find("--shard \"$shard/4\""), std::string::npos);
  EXPECT_NE(script.find("/shards'/\"$shard\""), std::string::npos);
  EXPECT_NE(script.find("'/data/it'\\''s.jsonl'"), std::string::npos);  // quoted for bash
  EXPECT_NE(script.find("'--device' 'cuda'"), std::string::npos);
}

TEST(SlurmTest, SubmitRecordsTheJobIdAndTheRecordLoadsBack) {
  ScratchDir dir;
  FakeRunner runner;
  runner.answers = {{0, "4242\n", ""}};
  SlurmClient slurm(runner);
  ArrayJob job = four_shards(dir.path());
  EXPECT_EQ(submit_shards(job, slurm, {0, 1, 2, 3}), "4242");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0][2], "--array=0-3%2");
  const ArrayJob loaded = ArrayJob::load(dir.path());
  EXPECT_EQ(loaded.job_ids, std::vector<std::string>{"4242"});
  EXPECT_EQ(loaded.submissions, job.submissions);
  EXPECT_EQ(loaded.shards, 4);
}

TEST(SlurmTest, ARefusedSubmissionSaysWhatSbatchSaid) {
  ScratchDir dir;
  FakeRunner runner;
  runner.answers = {{1, "", "sbatch: error: invalid partition specified: gpu\n"}};
  SlurmClient slurm(runner);
  ArrayJob job = four_shards(dir.path());
  try {
    submit_shards(job, slurm, {0});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid partition"), std::string::npos);
  }
}

TEST(SlurmTest, QueueStatesComeFromTheLatestJobOfEachTask) {
  FakeRunner runner;
  runner.answers = {{0, "10_1|RUNNING\n10_2|PENDING\n11_2|RUNNING\n", ""}};
  SlurmClient slurm(runner);
  const auto states = slurm.queued({"10", "11"});
  EXPECT_EQ(states.at(1), "RUNNING");
  EXPECT_EQ(states.at(2), "RUNNING");
  EXPECT_EQ(states.count(0), 0u);
}

TEST(SlurmTest, ShardsNeitherDoneNorQueuedAreResubmitted) {
  ScratchDir dir;
  ArrayJob job = four_shards(dir.path());
  dir.write("shards/0/summary.json", "{}");
  dir.write("shards/0/results.jsonl", "{}\n{}\n");
  dir.write("shards/3/results.jsonl", "{}\n");
  const auto statuses = shard_statuses(job, {{1, "RUNNING"}});
  EXPECT_EQ(statuses[0].state, "done");
  EXPECT_EQ(statuses[0].judged, 2u);
  EXPECT_EQ(statuses[1].state, "running");
  EXPECT_EQ(statuses[2].state, "stopped");
  EXPECT_EQ(statuses[3].state, "stopped");
  EXPECT_EQ(shards_to_resubmit(statuses), (std::vector<int>{2, 3}));
}

}  // namespace
}  // namespace keval
