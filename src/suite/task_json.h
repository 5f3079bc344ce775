#pragma once
// A task as JSON, for `keval tasks list|show --json` (and whatever reads tasks by program).
#include <nlohmann/json.hpp>

#include "suite/task.h"

namespace keval {

// name, version, track, category, difficulty, entry, signature, dtypes, inplace, cases
// (count); `full` adds instruction, cases[] (name, small, params, dtypes), tolerance{dtype:
// {atol, rtol, reason}}, flops, bytes, source, notes and dir.
nlohmann::json task_json(const Task& task, bool full);

}  // namespace keval
