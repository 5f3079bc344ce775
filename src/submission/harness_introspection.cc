#include "submission/harness_introspection.h"

#include <regex>
#include <set>
#include <sstream>

#include "submission/python_text.h"

namespace keval {
namespace {

struct Rule {
  std::regex pattern;
  std::string construct;
  std::string kind;
  bool reaches_harness;
};

const std::vector<Rule>& rules() {
  static const std::string kFrames = "frame walking", kGc = "gc object walk", kKeval = "keval internals";
  // Names rather than `module.name` spellings: `from inspect import currentframe` and
  // `import sys as s; s._getframe()` are the same reach.
  static const std::vector<Rule> kRules = {
      {std::regex(R"(\b_getframe\b)"), "sys._getframe", kFrames, true},
      {std::regex(R"(\b_current_frames\b)"), "sys._current_frames", kFrames, true},
      {std::regex(R"(\bf_back\b)"), ".f_back", kFrames, true},
      {std::regex(R"(\bf_locals\b)"), ".f_locals", kFrames, true},
      {std::regex(R"(\bf_globals\b)"), ".f_globals", kFrames, true},
      {std::regex(R"(\btb_frame\b)"), ".tb_frame", kFrames, true},
      {std::regex(R"(\bcurrentframe\b)"), "inspect.currentframe", kFrames, true},
      {std::regex(R"(\bgetouterframes\b)"), "inspect.getouterframes", kFrames, true},
      {std::regex(R"(\bgetinnerframes\b)"), "inspect.getinnerframes", kFrames, true},
      // `stack` and `trace` alone are common words (torch.stack): only inspect's
      {std::regex(R"(\binspect\s*\.\s*(?:stack|trace)\b|\bfrom\s+inspect\s+import\b.*\b(?:stack|trace)\b)"),
       "inspect.stack", kFrames, true},
      // a tracing or profiling hook is handed every frame of the process
      {std::regex(R"(\bsettrace\b)"), "sys.settrace", kFrames, true},
      {std::regex(R"(\bsetprofile\b)"), "sys.setprofile", kFrames, true},
      {std::regex(R"(\bget_objects\b)"), "gc.get_objects", kGc, true},
      {std::regex(R"(\bget_referrers\b)"), "gc.get_referrers", kGc, true},
      {std::regex(R"(\bget_referents\b)"), "gc.get_referents", kGc, true},
      // the runner's package and the module names it loads the task's files under
      {std::regex(R"(\bkeval_(?:runner|baseline|task|candidate|tracking|launch_cover|zygote)\w*)"),
       "keval module", kKeval, true},
      {std::regex(R"(\bsys\s*\.\s*modules\b|\bfrom\s+sys\s+import\b.*\bmodules\b)"), "sys.modules",
       "sys.modules lookup", false},
      {std::regex(R"(\bctypes\b)"), "ctypes", "ctypes", false},
  };
  return kRules;
}

}  // namespace

nlohmann::json IntrospectionUse::to_json() const {
  return {{"construct", construct}, {"kind", kind}, {"line", line}, {"reaches_harness", reaches_harness}};
}

IntrospectionUse IntrospectionUse::from_json(const nlohmann::json& j) {
  return {j.at("construct").get<std::string>(), j.at("kind").get<std::string>(), j.at("line").get<int>(),
          j.at("reaches_harness").get<bool>()};
}

std::string IntrospectionUse::describe() const {
  return construct + (kind == construct ? "" : " (" + kind + ")") + " at line " + std::to_string(line);
}

std::vector<IntrospectionUse> find_introspection(std::string_view code) {
  std::vector<IntrospectionUse> found;
  std::set<std::string> seen;
  std::istringstream lines(without_comments(code));
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    for (const Rule& rule : rules()) {
      std::smatch match;
      if (!std::regex_search(line, match, rule.pattern)) continue;
      // each keval module by its own name: the reason says which one was reached
      const std::string construct = rule.kind == "keval internals" ? match.str(0) : rule.construct;
      if (seen.insert(construct).second) found.push_back({construct, rule.kind, number, rule.reaches_harness});
    }
  }
  return found;
}

}  // namespace keval
