#pragma once
// How many connections keval serve holds at once, served or waiting for an HTTP thread. Without
// a bound, connections that keep coming queue for the threads until the process runs out of
// file descriptors, and then the runners, the stores and the logs fail with it. One over the
// bound is refused: answered 503 by threads kept apart for it (http_server.cc), so the
// connections already held go on as before.
#include <atomic>
#include <cstddef>
#include <string>

namespace keval {

// Connections over the limit are answered by threads of their own (http_server.cc), at most
// this many queued for them; each holds its descriptor until answered (descriptor_budget.h).
inline constexpr size_t kRefusingThreads = 2;
inline constexpr size_t kRefusalsQueued = 64;

class ConnectionLimit {
 public:
  explicit ConnectionLimit(size_t max);

  // A connection accepted: true when it fits under the bound (then it counts until release()),
  // false when it is one too many (counted as refused).
  bool admit();
  void release();

  size_t open() const { return open_; }
  size_t max() const { return max_; }
  size_t refused() const { return refused_; }

  // Prometheus text: keval_http_connections, keval_http_connections_max and
  // keval_http_connections_refused_total.
  std::string metrics_text() const;

 private:
  const size_t max_;
  std::atomic<size_t> open_{0};
  std::atomic<size_t> refused_{0};
};

}  // namespace keval
