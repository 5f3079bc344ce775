#include "submission/py_file_reader.h"

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

TEST(SubmissionPyFileTest, TaskAndIdComeFromFileName) {
  ScratchDir dir;
  const auto file = dir.write("softmax.py", "def softmax(x):\r\n    return x\r\n");
  const Submission s = read_py_file(file);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.task, "softmax");
  EXPECT_EQ(s.id, "softmax");
  EXPECT_EQ(s.code, "def softmax(x):\n    return x\n");
  EXPECT_EQ(s.origin, file.string());
}

TEST(SubmissionPyFileTest, TaskIsNameBeforeFirstDot) {
  ScratchDir dir;
  const Submission s = read_py_file(dir.write("softmax.candidate3.py", "x = 1\n"));
  EXPECT_EQ(s.task, "softmax");
  EXPECT_EQ(s.id, "softmax.candidate3");
}

TEST(SubmissionPyFileTest, TaskHeaderNamesTheTaskWhateverTheFileName) {
  ScratchDir dir;
  const Submission s = read_py_file(dir.write("relu_leaky.py", "# task: relu\n# expect: mismatch\nimport torch\n"));
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.task, "relu");
  EXPECT_EQ(s.id, "relu_leaky");
}

TEST(SubmissionPyFileTest, TaskHeaderCountsOnlyBeforeTheFirstLineOfCode) {
  EXPECT_EQ(task_from_header("\n#!/usr/bin/env python\n#   task:  softmax  \nx = 1\n"), "softmax");
  EXPECT_EQ(task_from_header("x = 1\n# task: relu\n"), "");
  EXPECT_EQ(task_from_header("# why: no header here\n"), "");
}

TEST(SubmissionPyFileTest, EmptyFileIsBadSubmission) {
  ScratchDir dir;
  const auto file = dir.write("relu.py", "\n\n");
  const Submission s = read_py_file(file);
  EXPECT_EQ(s.error, file.string() + ": empty file");
  EXPECT_EQ(s.task, "relu");
}

TEST(SubmissionPyFileTest, NonUtf8FileIsBadSubmission) {
  ScratchDir dir;
  const auto file = dir.write("relu.py", "# caf\xE9\n");
  EXPECT_EQ(read_py_file(file).error, file.string() + ": not valid UTF-8 (byte 5)");
}

}  // namespace
}  // namespace keval
