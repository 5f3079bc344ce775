#pragma once
// The dataset side of one evaluation (docs/dataset.md): which suite and version it belongs to,
// the program in makora's form, and the cases it is timed on.
#include <string>

#include "engine/settings/run_settings.h"
#include "store/store.h"
#include "suite/task.h"

namespace keval {

// `suite` names the suite as the user gave it (e.g. "keval", "kernelbench"). No timed cases
// when timing is off: such an evaluation is no dataset record.
RecordContext record_context(const Task& task, const RunSettings& settings, const std::string& suite,
                             const std::string& code);

// A fingerprint of what defines the task's problem (task.toml, reference.py, problem.py):
// "v<version>-<12 hex>", so records of an edited task never mix with older ones unseen.
std::string task_fingerprint(const Task& task);

// makora's `x`: a KernelBench-format task's problem (class Model, get_inputs) and the
// submission (class ModelNew) in one file; the code alone when it already defines Model, and
// "" for tasks of other formats.
std::string makora_program(const Task& task, const std::string& code);

}  // namespace keval
