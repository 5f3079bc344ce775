#include "submission/code_extraction.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(CodeExtractionTest, TextWithoutFencesIsUsedAsIs) {
  EXPECT_EQ(extract_code("import triton\ndef relu(x):\n    return x\n"),
            "import triton\ndef relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, SingleFencedBlockIsExtracted) {
  const std::string text =
      "Here is the kernel:\n```python\ndef relu(x):\n    return x\n```\nIt is fast.\n";
  EXPECT_EQ(extract_code(text), "def relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, SingleBlockWithOtherLabelIsStillExtracted) {
  EXPECT_EQ(extract_code("```cuda\nx = 1\n```"), "x = 1\n");
}

TEST(CodeExtractionTest, PrefersLastPythonBlockWithTopLevelDef) {
  const std::string text =
      "First try:\n```python\ndef relu(x):\n    return 0\n```\n"
      "Usage:\n```python\nout = relu(x)\n```\n"
      "Better:\n```py\n@triton.jit\ndef relu(x):\n    return x\n```\n"
      "Shell:\n```bash\ndef_not_python\n```\n";
  EXPECT_EQ(extract_code(text), "@triton.jit\ndef relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, FallsBackToLongestBlockWithoutDef) {
  const std::string text = "```python\nx = 1\n```\n```\ny = torch.relu(x) + 1\n```\n```text\nz\n```";
  EXPECT_EQ(extract_code(text), "y = torch.relu(x) + 1\n");
}

TEST(CodeExtractionTest, NestedDefDoesNotCountAsTopLevel) {
  const std::string text =
      "```python\ndef relu(x):\n    return x\n```\n```python\nclass K:\n    def f(self): pass\n```";
  EXPECT_EQ(extract_code(text), "def relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, IndentedFenceIsDedented) {
  const std::string text = "1. Code:\n   ```python\n   def relu(x):\n       return x\n   ```\n";
  EXPECT_EQ(extract_code(text), "def relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, UnclosedFenceRunsToEnd) {
  EXPECT_EQ(extract_code("```python\ndef relu(x):\n    return x"), "def relu(x):\n    return x\n");
}

TEST(CodeExtractionTest, LongerFenceIsNotClosedByShorterOne) {
  const std::string text = "````python\ns = '''\n```\n'''\ndef f(): pass\n````\n";
  EXPECT_EQ(extract_code(text), "s = '''\n```\n'''\ndef f(): pass\n");
}

TEST(CodeExtractionTest, CrlfBecomesLfAndBomIsStripped) {
  EXPECT_EQ(normalise_text("\xEF\xBB\xBF" "def f():\r\n    pass\r\n"), "def f():\n    pass\n");
  EXPECT_EQ(extract_code("```python\r\ndef f():\r\n    pass\r\n```\r\n"), "def f():\n    pass\n");
}

TEST(CodeExtractionTest, FencedBlocksReportLowercasedLabel) {
  const auto blocks = fenced_blocks("```Python title=k.py\na\n```\n```\nb\n```\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].info, "python");
  EXPECT_EQ(blocks[1].info, "");
  EXPECT_EQ(blocks[1].body, "b\n");
}

}  // namespace
}  // namespace keval
