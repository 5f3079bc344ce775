#include "cli/unjudged.h"

namespace keval {

int report_unjudged(const RunOutput& output, std::ostream& err) {
  const size_t n = output.harness_errors.size();
  if (n == 0) return 0;
  for (const auto& error : output.harness_errors) {
    err << "keval: not judged: " << error.value("id", "?") << " (" << error.value("task", "?")
        << "): harness error: " << error.value("reason", "") << "\n";
  }
  err << "keval: " << n << " submission(s) not judged because of a harness error (a fault of keval or "
      << "this machine, not of the submission); nothing was stored for them: fix the cause and run "
      << "again to judge them\n";
  return 1;
}

}  // namespace keval
