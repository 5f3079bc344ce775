#include "engine/resume/unknown_task.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

const std::vector<std::string> kTasks = {"softmax", "relu", "layer_norm", "rms_norm", "row_sum"};

TEST(UnknownTaskTest, APyFileNamedAfterNoTaskGetsTheHeaderAndNearTasks) {
  const Submission s = usable_submission("my_softmax_v2", "import torch\n", "my_softmax_v2", "subs/my_softmax_v2.py");
  const std::string reason = unknown_task_reason(s, kTasks);
  EXPECT_NE(reason.find("subs/my_softmax_v2.py: unknown task \"my_softmax_v2\""), std::string::npos) << reason;
  EXPECT_NE(reason.find("tasks near it: softmax"), std::string::npos) << reason;
  EXPECT_NE(reason.find("\"# task: NAME\""), std::string::npos) << reason;
  EXPECT_EQ(reason.find('\n'), std::string::npos);
}

TEST(UnknownTaskTest, AHeaderOrAJsonlLineKeepsTheShortHint) {
  const Submission header = usable_submission("sofmax", "# task: sofmax\nimport torch\n", "k", "subs/k.py");
  EXPECT_EQ(unknown_task_reason(header, kTasks), "subs/k.py: unknown task \"sofmax\" (did you mean \"softmax\"?)");
  const Submission line = usable_submission("sofmax", "import torch\n", "a", "subs.jsonl:3");
  EXPECT_EQ(unknown_task_reason(line, kTasks), "subs.jsonl:3: unknown task \"sofmax\" (did you mean \"softmax\"?)");
}

}  // namespace
}  // namespace keval
