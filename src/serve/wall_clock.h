#pragma once
// Seconds since the Unix epoch: the job queue's and the service's timestamps, comparable across
// processes that share the queue file.
#include <chrono>

namespace keval {

inline double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace keval
