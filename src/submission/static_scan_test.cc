#include "submission/static_scan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace keval {
namespace {

bool has_flag(const StaticScan& scan, const std::string& part) {
  return std::any_of(scan.flags.begin(), scan.flags.end(),
                     [&](const std::string& f) { return f.find(part) != std::string::npos; });
}

const char* kCleanKernel = R"py(import torch
import triton
import triton.language as tl

@triton.jit
def _add(x, y, o, n, B: tl.constexpr):
    # torch.allclose = None in a comment is harmless
    pass

def vector_add(x, y):
    s = "import subprocess"
    return x
)py";

TEST(StaticScanTest, CleanKernelHasNoFlags) {
  StaticScan scan = scan_python_source(kCleanKernel, "vector_add");
  EXPECT_TRUE(scan.defines_entry);
  EXPECT_TRUE(scan.has_triton_jit);
  EXPECT_TRUE(scan.flags.empty()) << scan.flags.front();
}

TEST(StaticScanTest, FlagsKnownHacks) {
  StaticScan scan = scan_python_source(
      "import ctypes\nimport torch\ntorch.allclose = lambda *a, **k: True\n"
      "s = torch.cuda.Stream()\ncache = {}\ndef f(x):\n    return cache.get(x.data_ptr())\n"
      "def vector_add(x, y):\n    return torch.nn.functional.relu(x)\n", "vector_add");
  EXPECT_TRUE(has_flag(scan, "ctypes"));
  EXPECT_TRUE(has_flag(scan, "monkey-patching"));
  EXPECT_TRUE(has_flag(scan, "CUDA streams"));
  EXPECT_TRUE(has_flag(scan, "data_ptr"));
  EXPECT_TRUE(has_flag(scan, "PyTorch compute"));
  EXPECT_TRUE(has_flag(scan, "no @triton.jit"));
}

TEST(StaticScanTest, ComparisonIsNotAssignment) {
  StaticScan scan = scan_python_source("import torch\nok = torch.float16 == x\n", "f");
  EXPECT_FALSE(has_flag(scan, "monkey-patching"));
}

TEST(StaticScanTest, MissingEntryIsFlaggedAndKernelFunctionCounts) {
  EXPECT_TRUE(has_flag(scan_python_source("def softmax2(x):\n    pass\n", "softmax"),
                       "no top-level definition of softmax"));
  StaticScan scan = scan_python_source("kernel_function = lambda x: x\n", "softmax");
  EXPECT_TRUE(scan.defines_kernel_function);
  EXPECT_FALSE(has_flag(scan, "no top-level definition"));
}

TEST(StaticScanTest, CodeOnlyBlanksStringsAndCommentsKeepingLines) {
  std::string text = code_only("a = 'x#y'  # note\nb = \"\"\"two\nlines\"\"\"\n");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_EQ(text.find("note"), std::string::npos);
  EXPECT_EQ(text.find("two"), std::string::npos);
  EXPECT_NE(text.find("b ="), std::string::npos);
}

}  // namespace
}  // namespace keval
