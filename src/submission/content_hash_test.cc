#include "submission/content_hash.h"

#include <gtest/gtest.h>

#include "submission/submission.h"

namespace keval {
namespace {

TEST(SubmissionHashTest, Sha256MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SubmissionHashTest, SameTaskAndCodeGiveSameHash) {
  const Submission a = usable_submission("relu", "def relu(x): pass\n", "", "a.jsonl:1");
  const Submission b = usable_submission("relu", "def relu(x): pass\n", "other", "b.py");
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.hash, sha256_hex("relu\ndef relu(x): pass\n"));
}

TEST(SubmissionHashTest, DifferentTaskGivesDifferentHash) {
  const Submission a = usable_submission("relu", "def f(x): pass\n", "", "a.jsonl:1");
  const Submission b = usable_submission("softmax", "def f(x): pass\n", "", "a.jsonl:2");
  EXPECT_NE(a.hash, b.hash);
}

TEST(SubmissionHashTest, IdDefaultsToHashPrefix) {
  const Submission s = usable_submission("relu", "def relu(x): pass\n", "", "a.jsonl:1");
  EXPECT_EQ(s.id, s.hash.substr(0, 12));
  EXPECT_EQ(usable_submission("relu", "x = 1\n", "mine", "a.py").id, "mine");
}

TEST(SubmissionHashTest, DifferentBadLinesGetDifferentIds) {
  const Submission a = bad_submission("", "", "s.jsonl:1", "s.jsonl:1: invalid JSON", "{");
  const Submission b = bad_submission("", "", "s.jsonl:2", "s.jsonl:2: invalid JSON", "[");
  EXPECT_NE(a.id, b.id);
}

}  // namespace
}  // namespace keval
