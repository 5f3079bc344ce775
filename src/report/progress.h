#pragma once
// The one-line progress display (done/total, passes, ETA), shown only on a terminal.
#include <chrono>
#include <mutex>
#include <ostream>

namespace keval {

class Progress {
 public:
  Progress(std::ostream& out, size_t total, bool enabled);
  void finished_one(bool passed);
  void close();

 private:
  std::ostream& out_;
  size_t total_;
  bool enabled_;
  size_t done_ = 0;
  size_t passed_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
};

}  // namespace keval
