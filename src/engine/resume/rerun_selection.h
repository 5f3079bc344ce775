#pragma once
// `keval run --rerun`: which stored results are judged again instead of reused.
#include <set>
#include <string>

#include "report/submission_result.h"
#include "suite/suite.h"

namespace keval {

class RerunSelection {
 public:
  // `spec`: "" (reuse every stored result), "all", a comma list of verdict names
  // ("crash,timeout"), or task globs as --tasks takes them ("soft*"). Throws
  // std::runtime_error (one line, with near names) for a spec that names nothing known, or
  // that mixes verdicts and task globs.
  static RerunSelection parse(const std::string& spec, const Suite& suite);

  // True when this stored result must be judged again.
  bool wants(const SubmissionResult& stored) const;

 private:
  bool all_ = false;
  std::set<std::string> verdicts_;
  std::set<std::string> tasks_;
};

}  // namespace keval
