#include "submission/utf8.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(SubmissionUtf8Test, AcceptsAsciiAndMultibyteText) {
  EXPECT_FALSE(first_invalid_utf8("def f(x): return x  # caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(first_invalid_utf8(""));
}

TEST(SubmissionUtf8Test, ReportsOffsetOfFirstBadByte) {
  EXPECT_EQ(first_invalid_utf8("ab\xE9z"), 2u);          // Latin-1 e-acute
  EXPECT_EQ(first_invalid_utf8("abc\xE2\x9C"), 3u);      // truncated at the end
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u);         // overlong '/'
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);    // UTF-16 surrogate
}

}  // namespace
TEST(Utf8Test, InvalidBytesAreReplacedAndValidTextKept) {
  EXPECT_EQ(with_invalid_utf8_replaced("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(with_invalid_utf8_replaced("a\xA3" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(with_invalid_utf8_replaced("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated at the end
  EXPECT_FALSE(first_invalid_utf8(with_invalid_utf8_replaced("\xFF\xC0\x80x")).has_value());
}

}  // namespace keval
