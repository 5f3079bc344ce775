#pragma once
// Introspection in a submission's source: constructs that reach objects the submission never
// made (stack frames, the garbage collector's object lists, keval's own modules), and raw
// memory access. Those that reach the runner's objects decide `tampering`; the rest are flags.
// A static look at the text: code that spells a name at run time (getattr with a built
// string) is not seen here (docs/trust.md).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct IntrospectionUse {
  std::string construct;  // as the scan names it: "sys._getframe", "gc.get_objects", "keval_runner"
  std::string kind;       // "frame walking", "gc object walk", "keval internals", "sys.modules lookup", "ctypes"
  int line = 0;           // 1-based line of its first use
  bool reaches_harness = false;  // frames, gc walks and keval's modules reach the runner's objects

  nlohmann::json to_json() const;
  static IntrospectionUse from_json(const nlohmann::json& j);
  // "gc.get_objects (gc object walk) at line 12"
  std::string describe() const;
};

// Each construct once, at its first line, in order of lines. Comments are ignored; string
// contents are not (sys.modules["keval_runner"] names the runner in a string).
std::vector<IntrospectionUse> find_introspection(std::string_view code);

}  // namespace keval
