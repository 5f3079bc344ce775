#pragma once
// Progress of a run: on a terminal one rewritten line (done/total, passes, ETA); elsewhere
// (logs, CI) one line per finished submission, so a killed run still shows how far it got.
#include <chrono>
#include <mutex>
#include <ostream>
#include <string>

namespace keval {

class Progress {
 public:
  Progress(std::ostream& out, size_t total, bool enabled, bool terminal);
  void finished_one(bool passed, const std::string& label);
  void close();

 private:
  std::ostream& out_;
  size_t total_;
  bool enabled_;
  bool terminal_;
  size_t done_ = 0;
  size_t passed_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
};

}  // namespace keval
