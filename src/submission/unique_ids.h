#pragma once
// Every result is addressed by its submission's id (results.jsonl, the report, resume), so ids
// must be unique within a run's submissions.
#include <vector>

#include "submission/submission.h"

namespace keval {

// An id given twice (JSONL "id", a .py file's name) throws std::runtime_error naming both
// origins. An id keval made from the code's hash (no "id" given) repeats when the same code for
// the same task comes twice: the later ones get "-2", "-3", ... appended.
void make_ids_unique(std::vector<Submission>& submissions);

}  // namespace keval
