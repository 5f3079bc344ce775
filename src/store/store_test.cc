#include "store/store.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace keval {
namespace {

SubmissionResult result_with(Verdict verdict) {
  SubmissionResult r;
  r.id = "relu_correct";
  r.task = "relu";
  r.hash = "abc";
  r.judgement = {verdict, {"why"}};
  r.cases.push_back(CaseResult{"odd", "float32"});
  return r;
}

TEST(StoreTest, AFreshEvaluationOfAKeyReplacesTheStoredOne) {
  const auto path = std::filesystem::temp_directory_path() / ("store-test-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  {
    Store store(path);
    const int64_t run = store.begin_run({"suite", "subs", "cpu", {}, {}});
    store.put_evaluation(run, "key-1", "code", 1, result_with(Verdict::kCrash), nullptr);
    store.put_evaluation(run, "key-1", "code", 1, result_with(Verdict::kPass), nullptr);
    auto stored = store.find_result("key-1");
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->judgement.verdict, Verdict::kPass);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
}  // namespace keval
