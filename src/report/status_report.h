#pragma once
// suites/<suite>/STATUS.md: per task, the golden kernel's time, achieved throughput, share of
// the GPU's measured ceiling and speedup over PyTorch eager / torch.compile, from one
// `keval validate --status FILE` run, or from the results of earlier runs (`--from`; `note`
// then says which, in the report's first paragraph).
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/submission_result.h"
#include "suite/suite.h"

namespace keval {

void write_status_report(std::ostream& out, const Suite& suite,
                         const std::vector<SubmissionResult>& golden_results,
                         const nlohmann::json& summary, const std::string& note);

}  // namespace keval
