#include "submission/submission.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"

namespace keval {
namespace {

// The message of the runtime_error `read_submissions(path)` throws ("" if none).
std::string read_error(const std::filesystem::path& path) {
  try {
    read_submissions(path);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(SubmissionReaderTest, ReadsJsonlFile) {
  ScratchDir dir;
  const auto file = dir.write("s.jsonl", "{\"task\": \"relu\", \"code\": \"x = 1\"}\n");
  const auto submissions = read_submissions(file);
  ASSERT_EQ(submissions.size(), 1u);
  EXPECT_EQ(submissions[0].task, "relu");
  EXPECT_EQ(submissions[0].origin, file.string() + ":1");
}

TEST(SubmissionReaderTest, ReadsPyFile) {
  ScratchDir dir;
  const auto submissions = read_submissions(dir.write("relu.py", "x = 1\n"));
  ASSERT_EQ(submissions.size(), 1u);
  EXPECT_EQ(submissions[0].task, "relu");
}

TEST(SubmissionReaderTest, ReadsFolderInNameOrderIgnoringOtherFiles) {
  ScratchDir dir;
  dir.write("b.jsonl",
            "{\"task\": \"softmax\", \"code\": \"s = 1\"}\n"
            "{\"task\": \"cumsum\", \"code\": \"c = 1\"}\n");
  dir.write("c_relu.py", "r = 1\n");
  dir.write("a_add.py", "a = 1\n");
  dir.write("notes.txt", "not a submission");
  dir.write("sub/nested.py", "n = 1\n");  // not recursive
  const auto submissions = read_submissions(dir.path());
  ASSERT_EQ(submissions.size(), 4u);
  EXPECT_EQ(submissions[0].task, "a_add");
  EXPECT_EQ(submissions[1].task, "softmax");
  EXPECT_EQ(submissions[2].task, "cumsum");
  EXPECT_EQ(submissions[3].task, "c_relu");
}

TEST(SubmissionReaderTest, MissingPathThrowsNamingPath) {
  ScratchDir dir;
  const auto path = dir.path() / "nope.jsonl";
  EXPECT_EQ(read_error(path), path.string() + ": no such file or folder");
}

TEST(SubmissionReaderTest, EmptyFileThrows) {
  ScratchDir dir;
  const auto file = dir.write("s.jsonl", "");
  EXPECT_EQ(read_error(file), file.string() + ": empty submissions file");
}

TEST(SubmissionReaderTest, FolderWithoutSubmissionsThrows) {
  ScratchDir dir;
  dir.write("readme.md", "hi");
  EXPECT_EQ(read_error(dir.path()),
            dir.path().string() + ": no submissions (no .py or .jsonl file in folder)");
}

TEST(SubmissionReaderTest, UnsupportedExtensionThrows) {
  ScratchDir dir;
  const auto file = dir.write("s.json", "{}");
  EXPECT_EQ(read_error(file),
            file.string() + ": unsupported extension \".json\" (want .jsonl, .py or a folder)");
}

}  // namespace
}  // namespace keval
