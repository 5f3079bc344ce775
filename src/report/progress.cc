#include "report/progress.h"

#include <cstdio>

namespace keval {

Progress::Progress(std::ostream& out, size_t total, bool enabled, bool terminal)
    : out_(out), total_(total), enabled_(enabled && total > 0), terminal_(terminal) {}

void Progress::finished_one(bool passed, const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  passed_ += passed;
  if (!enabled_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  double eta = done_ ? elapsed / done_ * (total_ - done_) : 0;
  char line[128];
  std::snprintf(line, sizeof line, "[%zu/%zu] pass %zu  elapsed %.0fs  eta %.0fs", done_, total_,
                passed_, elapsed, eta);
  if (terminal_) out_ << "\r" << line << "   " << std::flush;
  else out_ << line << "  " << label << std::endl;
}

void Progress::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (enabled_ && terminal_ && done_ > 0) out_ << "\n";
}

}  // namespace keval
