#pragma once
// Connections to keval serve that hold an HTTP thread, or a place in the queue for one, without
// sending a request: connected and silent, silent after an answer, or sending their headers a
// few bytes at a time (slowloris). cpp-httplib gives a connection its thread until it closes
// and bounds each read, never the whole header, so a few such connections could hold every
// thread and leave /v1/health unanswered. The reaper shuts down each connection to the port
// that has been quiet for `header_deadline` (since it connected or was last answered) and
// holds no whole header block in its socket, unless a request on it is being answered. A
// connection seen holding its whole headers gets a deadline from that sighting for its thread
// to start the request: the thread reads the bytes out of the socket a moment before it says
// so, and a sweep in that moment must not shut a request that waited its turn.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace keval {

class ConnectionReaper {
 public:
  using Clock = std::chrono::steady_clock;

  ConnectionReaper(int port, Clock::duration header_deadline);
  ~ConnectionReaper();
  ConnectionReaper(const ConnectionReaper&) = delete;
  ConnectionReaper& operator=(const ConnectionReaper&) = delete;

  // "ADDR:PORT" of a connection's peer, as cpp-httplib writes a request's remote_addr and port.
  static std::string peer_name(const std::string& addr, int port);

  // The request from `peer` has its headers in (it is being answered) / has been answered.
  void request_started(const std::string& peer, Clock::time_point now = Clock::now());
  void request_ended(const std::string& peer, Clock::time_point now = Clock::now());

  // One pass over this process's connections to the port; returns how many it shut down.
  size_t sweep(Clock::time_point now);

  void start();  // a thread sweeping once a second, until stop() or the destructor
  void stop();

 private:
  struct Seen {
    Clock::time_point since;  // connected, or last answered
    bool busy = false;        // a request on it is being answered
    std::optional<Clock::time_point> whole_at;  // last seen holding whole headers, since `since`
  };

  const int port_;
  const Clock::duration deadline_;
  std::mutex mutex_;
  std::map<std::string, Seen> seen_;  // by peer
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace keval
