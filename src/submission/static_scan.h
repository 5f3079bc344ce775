#pragma once
// Fast static look at a submission's Python source, before any process starts. Flags inform
// the reader (they go into results as `static_flags`); runtime checks decide the verdict,
// except for introspection that reaches keval's runner (harness_introspection.h).
#include <string>
#include <string_view>
#include <vector>

#include "submission/harness_introspection.h"
#include "submission/python_text.h"

namespace keval {

struct StaticScan {
  bool defines_entry = false;            // top-level def/assignment of the task's entry
  bool defines_kernel_function = false;  // ... or of kernel_function
  bool has_triton_jit = false;           // some @triton.jit / @jit decorator
  std::vector<std::string> top_level_names;
  std::vector<std::string> flags;        // suspicious constructs, one short sentence each
  std::vector<IntrospectionUse> introspection;  // frames, gc, keval's modules, sys.modules, ctypes

  // The uses that decide `tampering`.
  std::vector<IntrospectionUse> harness_reach() const;
};

StaticScan scan_python_source(std::string_view code, const std::string& entry);

}  // namespace keval
