#pragma once
// One evaluation run: resolve the device, start warm workers, time goldens, evaluate every
// submission, store and report. Shared by `keval run` and `keval validate`.
#include <ostream>
#include <vector>

#include "engine/results/result_recorder.h"
#include "engine/results/run_output.h"
#include "engine/session/warm_engine.h"
#include "engine/settings/run_options.h"
#include "submission/submission.h"
#include "suite/suite.h"

namespace keval {

// Throws std::runtime_error (HarnessError, StoreError, OutFolderBusy) with a one-line reason
// when the run itself cannot go on; a bad submission is a result, never an exception.
// `warm`: the device and slots a previous run left there are used, and this run's are left
// there (warm_engine.h); its runs must share the device and slot options. `on_result` is told
// each result as soon as it is settled, before the run ends. A WarmEngine whose pool holds
// fake slots (runner_slots.h) runs the whole session in memory (run_session_test.cc).
RunOutput run_session(const Suite& suite, const std::vector<Submission>& submissions,
                      const RunOptions& options, std::ostream& log, WarmEngine* warm = nullptr,
                      const ResultListener& on_result = {});

}  // namespace keval
