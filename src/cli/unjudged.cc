#include "cli/unjudged.h"

#include "engine/runner/run_interruption.h"

namespace keval {

int report_unjudged(const RunOutput& output, std::ostream& err) {
  const bool interrupted = output.summary.value("interrupted", false);
  size_t faults = 0, cut_short = 0;
  for (const auto& error : output.harness_errors) {
    if (interrupted && error.value("reason", "") == kInterruptedReason) {
      ++cut_short;  // one line for all of them, below
      continue;
    }
    ++faults;
    err << "keval: not judged: " << error.value("id", "?") << " (" << error.value("task", "?")
        << "): harness error: " << error.value("reason", "") << "\n";
  }
  if (faults > 0) {
    err << "keval: " << faults << " submission(s) not judged because of a harness error (a fault of keval or "
        << "this machine, not of the submission); nothing was stored for them: fix the cause and run "
        << "again to judge them\n";
  }
  if (interrupted) {
    err << "keval: interrupted; " << output.results.size() << " submission(s) judged, written and stored, "
        << cut_short << " left unjudged: run the same command again to judge them\n";
    return 130;  // 128 + SIGINT, as a shell reports a command Ctrl-C ended
  }
  return faults > 0 ? 1 : 0;
}

}  // namespace keval
