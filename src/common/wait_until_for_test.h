#pragma once
// Test-only: waits until another thread or process has reached a point, judged by what it
// does there as seen from outside (a gate's waiting count, a file), never by sleeping some
// milliseconds first: on a loaded machine a thread may not run for longer than any sleep (a
// 30 ms sleep once let a share slip in before an upgrade and hung CI for 15 minutes).
#include <chrono>
#include <thread>

namespace keval {

// False when `limit` passes first: the test then fails with its own message instead of
// waiting for CTest's TIMEOUT.
template <typename Reached>
bool wait_until(Reached reached, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!reached()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace keval
