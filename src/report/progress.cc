#include "report/progress.h"

#include <cstdio>

namespace keval {

Progress::Progress(std::ostream& out, size_t total, bool enabled)
    : out_(out), total_(total), enabled_(enabled && total > 0) {}

void Progress::finished_one(bool passed) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  passed_ += passed;
  if (!enabled_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  double eta = done_ ? elapsed / done_ * (total_ - done_) : 0;
  char line[128];
  std::snprintf(line, sizeof line, "\r[%zu/%zu] pass %zu  elapsed %.0fs  eta %.0fs   ", done_,
                total_, passed_, elapsed, eta);
  out_ << line << std::flush;
}

void Progress::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (enabled_ && done_ > 0) out_ << "\n";
}

}  // namespace keval
