#pragma once
// What a command says and returns when the run left submissions unjudged by a harness fault.
#include <ostream>

#include "engine/session/run_session.h"

namespace keval {

// 0 when every submission was judged; else one line per unjudged submission and a last line
// on `err`, and 1: the run did not complete, and the next run judges those submissions again.
// An interrupted run (run_interruption.h) says so in one line and returns 130.
int report_unjudged(const RunOutput& output, std::ostream& err);

}  // namespace keval
