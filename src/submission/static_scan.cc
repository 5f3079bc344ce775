#include "submission/static_scan.h"

#include <regex>
#include <set>
#include <sstream>

namespace keval {

std::vector<IntrospectionUse> StaticScan::harness_reach() const {
  std::vector<IntrospectionUse> reach;
  for (const auto& use : introspection) {
    if (use.reaches_harness) reach.push_back(use);
  }
  return reach;
}

StaticScan scan_python_source(std::string_view code, const std::string& entry) {
  StaticScan scan;
  const std::string text = code_only(code);
  static const std::regex kTopDef(R"(^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\()");
  static const std::regex kTopAssign(R"(^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=])");
  static const std::regex kTopClass(R"(^class\s+([A-Za-z_]\w*))");
  static const std::regex kJit(R"(@\s*(?:triton\s*\.\s*)?jit\b|triton\s*\.\s*jit\s*\()");
  struct Pattern {
    std::regex regex;
    std::string flag;
  };
  static const std::vector<Pattern> kPatterns = {
      {std::regex(R"(\b(?:import|from)\s+subprocess\b)"), "imports subprocess"},
      {std::regex(R"(\b(?:import|from)\s+socket\b)"), "imports socket"},
      {std::regex(R"(\b(?:import|from)\s+(?:multiprocessing|threading)\b)"), "starts threads or processes"},
      {std::regex(R"(\bos\s*\.\s*(?:system|fork|_exit|kill|popen|exec\w*|spawn\w*)\b)"), "calls process-control functions of os"},
      {std::regex(R"(\bcuda\s*\.\s*(?:Stream|stream|ExternalStream)\b)"), "uses CUDA streams (work outside the timed stream?)"},
      {std::regex(R"(\b(?:torch|triton|time|tl)(?:\s*\.\s*\w+)+\s*=[^=])"), "assigns to a torch/triton/time attribute (monkey-patching)"},
      {std::regex(R"(\bsetattr\s*\(\s*(?:torch|triton|time)\b)"), "setattr on torch/triton/time (monkey-patching)"},
      {std::regex(R"(\.\s*data_ptr\s*\(\s*\))"), "uses data_ptr() (possible output cache keyed on pointers)"},
      {std::regex(R"(\b(?:torch\s*\.\s*(?:matmul|mm|bmm|softmax|cumsum|einsum|addmm|nn\s*\.\s*functional)|F\s*\.\s*\w+\s*\())"), "calls PyTorch compute operators (library fallback?)"},
      {std::regex(R"(\bopen\s*\([^)]*['"][wa]\+?b?['"])"), "opens files for writing"},
  };
  std::set<std::string> flags;
  std::istringstream lines(text);
  std::istringstream original_lines{std::string(code)};
  std::string line, original;
  while (std::getline(lines, line)) {
    std::getline(original_lines, original);
    std::smatch m;
    if (std::regex_search(line, m, kTopDef) || std::regex_search(line, m, kTopAssign) ||
        std::regex_search(line, m, kTopClass)) {
      scan.top_level_names.push_back(m[1]);
      if (m[1] == entry) scan.defines_entry = true;
      if (m[1] == "kernel_function") scan.defines_kernel_function = true;
    }
    if (std::regex_search(line, kJit)) scan.has_triton_jit = true;
    for (const auto& pattern : kPatterns) {
      // The open() pattern needs the mode string, which code_only blanks: match the original.
      const std::string& subject = pattern.flag == "opens files for writing" ? original : line;
      if (std::regex_search(subject, pattern.regex)) flags.insert(pattern.flag);
    }
  }
  scan.introspection = find_introspection(code);
  for (const IntrospectionUse& use : scan.introspection) {
    flags.insert((use.reaches_harness ? "reaches keval's runner: " : "introspection: ") + use.describe());
  }
  if (!scan.has_triton_jit) flags.insert("defines no @triton.jit kernel");
  if (!scan.defines_entry && !scan.defines_kernel_function) {
    flags.insert("no top-level definition of " + entry + " or kernel_function");
  }
  scan.flags.assign(flags.begin(), flags.end());
  return scan;
}

}  // namespace keval
