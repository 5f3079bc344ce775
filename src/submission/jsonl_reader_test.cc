#include "submission/jsonl_reader.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "common/scratch_dir_for_test.h"
#include "submission/content_hash.h"

namespace keval {
namespace {

Submission parse(std::string_view line) { return parse_submission_line(line, "s.jsonl:3"); }

TEST(SubmissionJsonlTest, ReadsNativeLine) {
  const Submission s =
      parse(R"({"task": "softmax", "code": "def softmax(x):\n    return x\n", "id": "m1-7"})");
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.task, "softmax");
  EXPECT_EQ(s.code, "def softmax(x):\n    return x\n");
  EXPECT_EQ(s.id, "m1-7");
  EXPECT_EQ(s.origin, "s.jsonl:3");
  EXPECT_EQ(s.hash, sha256_hex("softmax\ndef softmax(x):\n    return x\n"));
}

TEST(SubmissionJsonlTest, NumericIdBecomesString) {
  EXPECT_EQ(parse(R"({"task": "relu", "code": "x = 1", "id": 42})").id, "42");
}

TEST(SubmissionJsonlTest, IdDefaultsToHashPrefix) {
  const Submission s = parse(R"({"task": "relu", "code": "x = 1"})");
  EXPECT_EQ(s.error, "");
  ASSERT_EQ(s.hash.size(), 64u);
  EXPECT_EQ(s.id, s.hash.substr(0, 12));
}

TEST(SubmissionJsonlTest, ReadsKernelBenchXLineWithTaskFromFileStem) {
  const Submission s = parse(
      R"({"predict": "Sure!\n```python\ndef relu(x):\n    return x\n```\n", "file": "Activation/relu.py"})");
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.task, "relu");
  EXPECT_EQ(s.code, "def relu(x):\n    return x\n");
  EXPECT_EQ(parse(R"({"predict": "x = 1", "file": "relu.py"})").task, "relu");
}

TEST(SubmissionJsonlTest, PredictWithoutTaskOrFileIsRejected) {
  const Submission s = parse(R"({"instruction": "write relu", "predict": "x = 1", "label": "y"})");
  EXPECT_EQ(s.error,
            "s.jsonl:3: no task: give \"task\" or \"file\" (has: instruction, predict, label)");
}

TEST(SubmissionJsonlTest, ReportsMissingCodeWithDidYouMean) {
  const Submission s = parse(R"({"task": "softmax", "cod": "x = 1"})");
  EXPECT_EQ(s.error, "s.jsonl:3: missing field \"code\" (has: task, cod; did you mean \"code\"?)");
  EXPECT_EQ(s.task, "softmax");
  EXPECT_EQ(s.origin, "s.jsonl:3");
}

TEST(SubmissionJsonlTest, ReportsMissingTaskWithDidYouMean) {
  EXPECT_EQ(parse(R"({"taks": "relu", "code": "x = 1"})").error,
            "s.jsonl:3: missing field \"task\" (has: taks, code; did you mean \"task\"?)");
}

TEST(SubmissionJsonlTest, ReportsInvalidJsonWithParserMessage) {
  const Submission s = parse(R"({"task": "relu", "code": )");
  EXPECT_TRUE(s.error.starts_with("s.jsonl:3: invalid JSON: column ")) << s.error;
  EXPECT_EQ(s.error.find('\n'), std::string::npos);
}

TEST(SubmissionJsonlTest, ReportsWrongTypes) {
  EXPECT_EQ(parse("[1, 2]").error, "s.jsonl:3: expected a JSON object, got array");
  EXPECT_EQ(parse(R"({"task": 3, "code": "x = 1"})").error,
            "s.jsonl:3: field \"task\" must be a string, got number");
  EXPECT_EQ(parse(R"({"task": "relu", "code": ["x"]})").error,
            "s.jsonl:3: field \"code\" must be a string, got array");
  EXPECT_EQ(parse(R"({"task": "relu", "code": "x = 1", "id": true})").error,
            "s.jsonl:3: field \"id\" must be a string or number, got boolean");
}

TEST(SubmissionJsonlTest, ReportsEmptyCode) {
  EXPECT_EQ(parse(R"({"task": "relu", "code": "  \n"})").error,
            "s.jsonl:3: field \"code\" is empty");
  EXPECT_EQ(parse(R"({"task": "relu", "predict": "```python\n```"})").error,
            "s.jsonl:3: field \"predict\" has no code in its fenced blocks");
}

TEST(SubmissionJsonlTest, MalformedLineKeepsReadingAndNamesLine) {
  ScratchDir dir;
  const auto file = dir.write("s.jsonl",
                              "{\"task\": \"relu\", \"code\": \"a = 1\"}\n"
                              "\n"
                              "{not json}\n"
                              "{\"task\": \"relu\", \"code\": \"b = 2\"}\n");
  const auto submissions = read_jsonl_file(file);
  ASSERT_EQ(submissions.size(), 3u);
  EXPECT_EQ(submissions[0].error, "");
  EXPECT_EQ(submissions[1].origin, file.string() + ":3");
  EXPECT_TRUE(submissions[1].error.starts_with(file.string() + ":3: invalid JSON: "))
      << submissions[1].error;
  EXPECT_EQ(submissions[2].error, "");
  EXPECT_EQ(submissions[2].code, "b = 2");
  EXPECT_EQ(submissions[2].origin, file.string() + ":4");
}

TEST(SubmissionJsonlTest, CrlfLinesAndCodeAreNormalised) {
  ScratchDir dir;
  const auto file = dir.write("s.jsonl",
                              "\xEF\xBB\xBF{\"task\": \"relu\", \"code\": \"def f():\\r\\n    pass\\r\\n\"}\r\n"
                              "\r\n");
  const auto submissions = read_jsonl_file(file);
  ASSERT_EQ(submissions.size(), 1u);
  EXPECT_EQ(submissions[0].error, "");
  EXPECT_EQ(submissions[0].code, "def f():\n    pass\n");
}

TEST(SubmissionJsonlTest, FileWithOnlyBlankLinesThrows) {
  ScratchDir dir;
  const auto file = dir.write("s.jsonl", "\n  \n\r\n");
  try {
    read_jsonl_file(file);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), file.string() + ": empty submissions file");
  }
}

TEST(JsonlReaderTest, KeepsTheGenerationRecordEvenOfAReplyWithoutCode) {
  const Submission good = parse(R"({"task": "relu", "code": "x = 1\n", "id": "relu@m#0", "generation": {"model": "m", "sample": 0}})");
  EXPECT_TRUE(good.error.empty());
  EXPECT_EQ(good.generation["model"], "m");
  const Submission empty = parse(R"({"task": "relu", "code": "no code here\n```python\n```", "generation": {"model": "m", "sample": 1}})");
  EXPECT_FALSE(empty.error.empty());
  EXPECT_EQ(empty.generation["sample"], 1);
  EXPECT_EQ(good.hash, parse(R"({"task": "relu", "code": "x = 1\n"})").hash);
}

TEST(JsonlReaderTest, AGenerationThatIsNotAnObjectIsABadSubmission) {
  const Submission s = parse(R"({"task": "relu", "code": "x = 1\n", "generation": "m"})");
  EXPECT_EQ(s.error, "s.jsonl:3: field \"generation\" must be an object, got string");
}

}  // namespace
}  // namespace keval
