#pragma once
// Fast static look at a submission's Python source, before any process starts. Flags inform
// the reader (they go into results as `static_flags`); runtime checks decide the verdict.
#include <string>
#include <string_view>
#include <vector>

namespace keval {

struct StaticScan {
  bool defines_entry = false;            // top-level def/assignment of the task's entry
  bool defines_kernel_function = false;  // ... or of kernel_function
  bool has_triton_jit = false;           // some @triton.jit / @jit decorator
  std::vector<std::string> top_level_names;
  std::vector<std::string> flags;        // suspicious constructs, one short sentence each
};

StaticScan scan_python_source(std::string_view code, const std::string& entry);

// The source with comments and string contents blanked out (line structure kept), so that
// patterns only match code. Unterminated strings run to the end.
std::string code_only(std::string_view code);

}  // namespace keval
