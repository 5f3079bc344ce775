#pragma once
// Per-submission code metrics (CodeBLEU against the task's golden.py; radon's maintainability
// index and cyclomatic complexity of the submission's own code), computed by
// `python -m keval_generate metrics`: they need the `codebleu` and `radon` packages.
#include <filesystem>
#include <ostream>
#include <vector>

#include "report/submission_result.h"
#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

// Whether a run scores code: "on", "off", or "auto" (on when a submission has a generation record).
bool wants_code_metrics(const std::string& mode, const std::vector<Submission>& submissions);

// Sets results[i].code_metrics for each usable submissions[i] of a task of the suite. A failure
// of the tool leaves them null and says so in one line on `log`: metrics never stop a run.
void add_code_metrics(std::vector<SubmissionResult>& results, const std::vector<const Submission*>& submissions,
                      const Suite& suite, const std::filesystem::path& work_dir, std::ostream& log);

}  // namespace keval
