#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "common/scratch_dir_for_test.h"
#include "common/wait_until_for_test.h"
#include "serve/job_queue.h"
#include "serve/preset.h"
#include "serve/request.h"
#include "serve/reward_shaping.h"
#include "serve/service.h"

namespace keval {
namespace {

// Judges "pass" unless the code says FAIL; counts what it was given.
class FakeEvaluator : public BatchEvaluator {
 public:
  std::vector<std::vector<std::string>> batches;
  bool harness_fails = false;
  // Told the first result early, the evaluation waits here until the test lets it end.
  std::optional<std::shared_future<void>> hold_after_first;
  std::vector<nlohmann::json> evaluate(const std::vector<Submission>& batch, const Preset& preset,
                                       const EachResult& on_each) override {
    if (harness_fails) throw std::runtime_error("no runner");
    batches.emplace_back();
    std::vector<nlohmann::json> results;
    for (const auto& s : batch) {
      batches.back().push_back(s.origin);
      const bool fail = s.code.find("FAIL") != std::string::npos;
      results.push_back({{"id", s.id}, {"task", s.task}, {"verdict", fail ? "mismatch" : "pass"},
                         {"reasons", fail ? nlohmann::json{"case c: wrong"} : nlohmann::json::array()},
                         {"speedup", fail ? nlohmann::json(nullptr) : nlohmann::json(1.6)},
                         {"speedup_ci", nullptr}, {"static_flags", nlohmann::json::array()},
                         {"preset", preset.name}});
    }
    if (hold_after_first) {
      on_each(0, results.at(0));
      hold_after_first->wait();
    }
    return results;
  }
};

// A suite of one task: the built-in relu.
struct Fixture {
  ScratchDir dir;
  Suite suite;
  Fixture() : suite(load()) {}
  Suite load() {
    std::filesystem::create_directories(dir.path() / "suite/relu");
    std::filesystem::copy(std::filesystem::path(KEVAL_SOURCE_DIR) / "suites/keval/relu", dir.path() / "suite/relu",
                          std::filesystem::copy_options::recursive);
    return Suite::load(dir.path() / "suite");
  }
};

const std::string kRelu = R"({"task": "relu", "code": "def relu(x): return x", "id": "a"})";

TEST(JobQueueTest, RunningJobsAreQueuedAgainWhenTheQueueReopensAndDoneJobsStayDone) {
  ScratchDir dir;
  std::string running, done;
  {
    JobQueue queue(dir.path() / "q.db");
    done = queue.enqueue("", "quick", {{"n", 1}}).job.id;
    running = queue.enqueue("", "quick", {{"n", 2}}).job.id;
    ASSERT_EQ(queue.claim(1).at(0).id, done);
    queue.finish(done, {{"verdict", "pass"}});
    ASSERT_EQ(queue.claim(1).at(0).id, running);
  }
  JobQueue reopened(dir.path() / "q.db");
  EXPECT_EQ(reopened.requeued_at_start(), 1u);
  EXPECT_EQ(reopened.get(running)->state, "queued");
  EXPECT_EQ(reopened.get(done)->state, "done");
  const auto again = reopened.claim(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempts, 2);
}

TEST(JobQueueTest, FinishedJobsAreForgottenAfterTheirTimeAndUnfinishedOnesStay) {
  ScratchDir dir;
  JobQueue queue(dir.path() / "q.db");
  const std::string done = queue.enqueue("k1", "quick", {{"n", 1}}).job.id;
  const std::string failed = queue.enqueue("", "quick", {{"n", 2}}).job.id;
  const std::string running = queue.enqueue("", "quick", {{"n", 3}}).job.id;
  const std::string cancelled = queue.enqueue("", "quick", {{"n", 4}}).job.id;
  const std::string queued = queue.enqueue("", "quick", {{"n", 5}}).job.id;
  ASSERT_EQ(queue.claim(3).size(), 3u);
  queue.finish(done, {{"verdict", "pass"}});
  queue.fail(failed, "harness: no runner");
  queue.cancel(cancelled);
  const double finished_at = queue.get(done)->finished_at;
  EXPECT_EQ(queue.forget_finished_before(finished_at - 3600), 0u);  // none ended that long ago
  EXPECT_EQ(queue.forget_finished_before(finished_at + 3600), 3u);
  EXPECT_FALSE(queue.get(done) || queue.get(failed) || queue.get(cancelled));
  EXPECT_EQ(queue.get(running)->state, "running");
  EXPECT_EQ(queue.get(queued)->state, "queued");
  EXPECT_TRUE(queue.enqueue("k1", "quick", {{"n", 1}}).created);  // its key is free again
}

TEST(JobQueueTest, AKnownKeyAnswersItsJobAndADifferentRequestUnderItConflicts) {
  ScratchDir dir;
  JobQueue queue(dir.path() / "q.db");
  const auto first = queue.enqueue("k", "quick", {{"code", "x"}});
  const auto retry = queue.enqueue("k", "quick", {{"code", "x"}});
  EXPECT_TRUE(first.created);
  EXPECT_FALSE(retry.created);
  EXPECT_EQ(retry.job.id, first.job.id);
  EXPECT_TRUE(queue.enqueue("k", "quick", {{"code", "y"}}).conflict);
  EXPECT_NE(queue.enqueue("", "quick", {{"code", "x"}}).job.id, queue.enqueue("", "quick", {{"code", "x"}}).job.id);
}

TEST(JobQueueTest, ABatchTakesOnlyTheOldestJobsPreset) {
  ScratchDir dir;
  JobQueue queue(dir.path() / "q.db");
  queue.enqueue("", "quick", {{"n", 1}});
  queue.enqueue("", "thorough", {{"n", 2}});
  queue.enqueue("", "quick", {{"n", 3}});
  const auto batch = queue.claim(10);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1].request["n"], 3);
  EXPECT_EQ(queue.claim(10).at(0).preset, "thorough");
}

TEST(ServeRequestTest, BadRequestsNameTheField) {
  Fixture f;
  auto field_of = [&](const std::string& body) {
    try {
      read_evaluate_request(parse_body(body), f.suite, "quick");
    } catch (const RequestError& e) {
      return std::to_string(e.status) + " " + e.field;
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_of("{\"task\": "), "400 body");
  EXPECT_EQ(field_of("[1]"), "400 body");
  EXPECT_EQ(field_of(R"({"task": "relu"})"), "400 code");
  EXPECT_EQ(field_of(R"({"code": "x"})"), "400 task");
  EXPECT_EQ(field_of(R"({"task": "relu", "code": 3})"), "400 code");
  EXPECT_EQ(field_of(R"({"task": "rleu", "code": "x"})"), "422 task");
  EXPECT_EQ(field_of(R"({"task": "relu", "code": "x", "preset": "fast"})"), "422 preset");
  EXPECT_EQ(field_of(R"({"task": "relu", "code": "x", "key": 7})"), "400 key");
  EXPECT_EQ(field_of(kRelu), "accepted");
}

TEST(ServeRequestTest, BatchItemsAreNamedByTheirIndex) {
  Fixture f;
  try {
    read_batch_request(parse_body(R"({"submissions": [)" + kRelu + R"(, {"task": "nope", "code": "x"}]})"), f.suite,
                       "quick", 10);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.field, "submissions[1].task");
  }
}

TEST(ServiceTest, EvaluateAnswersTheResultWithTheRawFactsWhenItIsReadyInTime) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  ServiceOptions options;
  options.reward = RewardShaping::parse(nlohmann::json::parse(R"({"pass": 1, "speedup": [[1.5, 2]], "fail": {"default": -1}})"), "r");
  Service service(queue, f.suite, evaluator, options);
  service.start();
  const Answer a = service.evaluate(kRelu, "", 30.0);
  service.stop();
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["verdict"], "pass");
  EXPECT_EQ(a.body["speedup"], 1.6);
  EXPECT_EQ(a.body["reward"], 2);
  EXPECT_EQ(a.body["reward_rung"], "speedup>=1.5");
  EXPECT_TRUE(a.body["hack_flags"].empty());
  EXPECT_EQ(a.body["result"]["preset"], "quick");
}

TEST(ServiceTest, AJobIsAnsweredAsSoonAsItsResultIsKnownNotWhenItsBatchEnds) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  std::promise<void> release;
  evaluator.hold_after_first = release.get_future().share();
  Service service(queue, f.suite, evaluator, {});
  const std::string first = service.evaluate(kRelu, "k1", 0.0).body["id"];
  const std::string second = service.evaluate(R"({"task": "relu", "code": "FAIL", "id": "b"})", "k2", 0.0).body["id"];
  service.start();
  const Answer early = service.job(first, 30.0);  // the batch is still held
  EXPECT_EQ(early.body["state"], "done");
  EXPECT_EQ(early.body["verdict"], "pass");
  EXPECT_EQ(service.job(second, 0.0).body["state"], "running");
  release.set_value();
  EXPECT_EQ(service.job(second, 30.0).body["verdict"], "mismatch");
  service.stop();
  EXPECT_EQ(evaluator.batches.size(), 1u);
}

TEST(ServiceTest, AnotherLaneTakesNewJobsWhileOneWaitsForItsSlowestJob) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  std::promise<void> release;
  FakeEvaluator lane_a, lane_b;  // each holds its batch after its first result
  lane_a.hold_after_first = lane_b.hold_after_first = release.get_future().share();
  Service service(queue, f.suite, std::vector<BatchEvaluator*>{&lane_a, &lane_b}, {});
  service.start();
  const std::string first = service.evaluate(kRelu, "k1", 0.0).body["id"];
  ASSERT_EQ(service.job(first, 30.0).body["state"], "done");  // its lane is still held
  const std::string second = service.evaluate(R"({"task": "relu", "code": "FAIL", "id": "b"})", "k2", 0.0).body["id"];
  const Answer answered = service.job(second, 30.0);
  EXPECT_EQ(answered.body["state"], "done");
  EXPECT_EQ(answered.body["verdict"], "mismatch");
  release.set_value();
  service.stop();
  EXPECT_EQ(lane_a.batches.size(), 1u);
  EXPECT_EQ(lane_b.batches.size(), 1u);
  EXPECT_EQ(service.health().body["lanes"], 2);
}

TEST(ServiceTest, AWorkerForgetsJobsFinishedLongerAgoThanForgetAfter) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  ServiceOptions options;
  options.forget_after_s = 0.05;
  Service service(queue, f.suite, evaluator, options);
  const std::string id = service.evaluate(kRelu, "", 0.0).body["id"];
  EXPECT_TRUE(service.work_once());  // judges it (the first pass found nothing to forget)
  EXPECT_EQ(queue.get(id)->state, "done");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Service later(queue, f.suite, evaluator, options);  // a new server: its first pass forgets
  EXPECT_FALSE(later.work_once());
  EXPECT_FALSE(queue.get(id).has_value());
  EXPECT_EQ(later.job(id).status, 404);
}

TEST(ServiceTest, ARetryWithTheSameKeyGetsTheSameJobAndIsJudgedOnce) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  Service service(queue, f.suite, evaluator, {});
  const Answer first = service.evaluate(kRelu, "key-1", 0.0);
  const Answer retry = service.evaluate(kRelu, "key-1", 0.0);
  ASSERT_EQ(first.status, 202);
  EXPECT_EQ(first.body["id"], retry.body["id"]);
  EXPECT_TRUE(service.work_once());
  EXPECT_FALSE(service.work_once());
  EXPECT_EQ(evaluator.batches.size(), 1u);
  EXPECT_EQ(evaluator.batches[0].size(), 1u);
  const Answer done = service.evaluate(kRelu, "key-1", 0.0);
  EXPECT_EQ(done.status, 200);
  EXPECT_EQ(done.body["state"], "done");
  EXPECT_EQ(service.evaluate(R"({"task": "relu", "code": "other"})", "key-1", 0.0).status, 409);
}

TEST(ServiceTest, AWaitOverTheLimitIsAnsweredAtOnceWithTheJobsState) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  ServiceOptions options;
  options.max_waiting = 1;
  Service service(queue, f.suite, evaluator, options);
  const std::string id = service.evaluate(kRelu, "", 0.0).body["id"];
  // No worker runs: the first long poll waits until the service stops.
  auto first = std::async(std::launch::async, [&] { return service.job(id, 600); });
  ASSERT_TRUE(wait_until([&] { return service.waiting() == 1; }));
  EXPECT_NE(service.metrics_text().find("\nkeval_requests_waiting 1\n"), std::string::npos);
  const auto t0 = std::chrono::steady_clock::now();
  const Answer second = service.job(id, 600);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body["state"], "queued");
  EXPECT_EQ(service.evaluate(kRelu, "", 600.0).status, 202);  // a POST's wait too
  service.stop();
  EXPECT_EQ(first.get().body["state"], "queued");
  EXPECT_EQ(service.waiting(), 0u);
}

TEST(ServiceTest, QueuedJobsAreJudgedTogetherAndOnlyQueuedOnesCanBeCancelled) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  Service service(queue, f.suite, evaluator, {});
  const Answer batch = service.evaluate_batch(R"({"submissions": [)" + kRelu +
                                              R"(, {"task": "relu", "code": "FAIL"}, {"task": "relu", "code": "c"}]})");
  ASSERT_EQ(batch.status, 202);
  const std::string cancelled = batch.body["jobs"][2]["id"];
  EXPECT_EQ(service.cancel(cancelled).status, 200);
  EXPECT_TRUE(service.work_once());
  ASSERT_EQ(evaluator.batches.size(), 1u);
  EXPECT_EQ(evaluator.batches[0].size(), 2u);
  const Answer failed = service.job(batch.body["jobs"][1]["id"]);
  EXPECT_EQ(failed.body["verdict"], "mismatch");
  EXPECT_EQ(failed.body["reasons"][0], "case c: wrong");
  EXPECT_EQ(service.cancel(batch.body["jobs"][0]["id"]).status, 409);
  EXPECT_EQ(service.job("nope").status, 404);
  EXPECT_EQ(service.job("nope").body["field"], "id");
  EXPECT_NE(service.metrics_text().find("keval_jobs_finished_total{verdict=\"mismatch\"} 1"), std::string::npos);
}

TEST(ServiceTest, AHarnessFailureFailsTheBatchsJobsWithTheReason) {
  Fixture f;
  JobQueue queue(f.dir.path() / "q.db");
  FakeEvaluator evaluator;
  evaluator.harness_fails = true;
  Service service(queue, f.suite, evaluator, {});
  const std::string id = service.evaluate(kRelu, "", 0.0).body["id"];
  service.work_once();
  const Answer a = service.job(id);
  EXPECT_EQ(a.body["state"], "failed");
  EXPECT_EQ(a.body["error"], "harness: no runner");
}

TEST(PresetTest, QuickTimesOneCasePerTaskWithShortSamplingAndTheServersFlagsWin) {
  RunOptions base;
  const RunOptions quick = with_preset(base, *find_preset("quick"));
  EXPECT_TRUE(quick.time_largest_case_only);
  EXPECT_DOUBLE_EQ(quick.timing_max_seconds, 0.1);
  EXPECT_EQ(quick.timeout_s, 120);
  EXPECT_EQ(quick.seeds, 2);
  const RunOptions standard = with_preset(base, *find_preset("standard"));
  EXPECT_FALSE(standard.time_largest_case_only);  // keval run's own: every benchmark case
  EXPECT_EQ(find_preset("thorough")->seeds, with_preset(base, *find_preset("thorough")).seeds);
  base.timeout_s = 30;  // --timeout
  base.timing = false;  // --no-timing
  const RunOptions flagged = with_preset(base, *find_preset("quick"));
  EXPECT_EQ(flagged.timeout_s, 30);
  EXPECT_FALSE(flagged.timing);
  EXPECT_EQ(find_preset("fast"), nullptr);
}

TEST(RewardShapingTest, LadderRungsAndHacks) {
  const auto r = RewardShaping::parse(nlohmann::json::parse(
      R"({"hack": -2, "fail": {"default": -1, "compile_error": -1.5}, "pass": 0.5, "speedup": [[2, 3], [1, 1]]})"), "r.json");
  EXPECT_EQ(r.reward({{"verdict", "tampering"}}).value, -2);
  EXPECT_EQ(r.reward({{"verdict", "compile_error"}}).value, -1.5);
  EXPECT_EQ(r.reward({{"verdict", "mismatch"}}).rung, "fail:default");
  EXPECT_EQ(r.reward({{"verdict", "pass"}, {"speedup", 0.8}}).value, 0.5);
  EXPECT_EQ(r.reward({{"verdict", "pass"}, {"speedup", 1.2}}).value, 1);
  EXPECT_EQ(r.reward({{"verdict", "pass"}, {"speedup", 2.5}}).value, 3);
}

TEST(RewardShapingTest, BadConfigsNameTheFileAndField) {
  for (const char* bad : {R"({"pas": 1})", R"({"fail": {"compile_eror": 1}})", R"({"speedup": [[1]]})", R"({"hack": "x"})"}) {
    try {
      RewardShaping::parse(nlohmann::json::parse(bad), "r.json");
      ADD_FAILURE() << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("r.json: ", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace keval
