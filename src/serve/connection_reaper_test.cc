#include "serve/connection_reaper.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace keval {
namespace {

using namespace std::chrono_literals;
using Clock = ConnectionReaper::Clock;

// A listening socket on 127.0.0.1 and the connections made to it, both ends in this process.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t length = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() {
    for (int fd : accepted_) ::close(fd);
    ::close(fd_);
  }
  int port() const { return port_; }
  // What a server thread does first: reads the last accepted connection's bytes out of its socket.
  void read_last() {
    char bytes[4096];
    while (::recv(accepted_.back(), bytes, sizeof bytes, MSG_DONTWAIT) > 0) {
    }
  }

  // A client connected and accepted: (client fd, the server side's peer name).
  std::pair<int, std::string> connect(const std::string& sends = "") {
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    accepted_.push_back(::accept(fd_, nullptr, nullptr));
    if (!sends.empty()) {
      EXPECT_EQ(::send(client, sends.data(), sends.size(), 0), static_cast<ssize_t>(sends.size()));
    }
    sockaddr_in own{};
    socklen_t length = sizeof own;
    ::getsockname(client, reinterpret_cast<sockaddr*>(&own), &length);
    return {client, ConnectionReaper::peer_name("127.0.0.1", ntohs(own.sin_port))};
  }

 private:
  std::vector<int> accepted_;
  int fd_ = -1;
  int port_ = 0;
};

// Whether the server shut the connection: the client reads its end (never blocks: a timeout).
bool ended(int client) {
  timeval wait{30, 0};
  ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  char byte;
  return ::recv(client, &byte, 1, 0) == 0;
}

TEST(ConnectionReaperTest, ShutsASilentConnectionAfterTheDeadlineNotBefore) {
  Listener listener;
  ConnectionReaper reaper(listener.port(), 10s);
  const auto [client, peer] = listener.connect();
  const auto t0 = Clock::now();
  EXPECT_EQ(reaper.sweep(t0), 0u);
  EXPECT_EQ(reaper.sweep(t0 + 9s), 0u);
  EXPECT_EQ(reaper.sweep(t0 + 10s), 1u);
  EXPECT_TRUE(ended(client));
  ::close(client);
}

TEST(ConnectionReaperTest, ShutsPartHeadersButKeepsAWholeRequestWaitingForAThread) {
  Listener listener;
  ConnectionReaper reaper(listener.port(), 10s);
  const auto [slow, slow_peer] = listener.connect("GET /v1/health HTTP/1.1\r\nHost: x\r\n");
  const auto [whole, whole_peer] = listener.connect("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto t0 = Clock::now();
  reaper.sweep(t0);
  EXPECT_EQ(reaper.sweep(t0 + 11s), 1u);
  EXPECT_TRUE(ended(slow));
  EXPECT_EQ(reaper.sweep(t0 + 60s), 0u);  // whole: still there, still kept
  ::close(slow);
  ::close(whole);
}

TEST(ConnectionReaperTest, KeepsAWaitingRequestWhileItsThreadReadsItThenCountsFromThere) {
  // A request that waited its turn past the deadline, read out of its socket by the thread that
  // took it, which has not yet said it started (a busy machine): the next sweep keeps it; a
  // thread that never starts it loses it a deadline later.
  Listener listener;
  ConnectionReaper reaper(listener.port(), 10s);
  const auto [whole, peer] = listener.connect("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto t0 = Clock::now();
  reaper.sweep(t0);
  EXPECT_EQ(reaper.sweep(t0 + 12s), 0u);
  listener.read_last();
  EXPECT_EQ(reaper.sweep(t0 + 13s), 0u);
  EXPECT_EQ(reaper.sweep(t0 + 21s), 0u);
  EXPECT_EQ(reaper.sweep(t0 + 22s), 1u);
  EXPECT_TRUE(ended(whole));
  ::close(whole);
}

TEST(ConnectionReaperTest, KeepsAConnectionWhileItsRequestIsAnsweredAndCountsFromTheAnswer) {
  Listener listener;
  ConnectionReaper reaper(listener.port(), 10s);
  const auto [client, peer] = listener.connect();
  const auto t0 = Clock::now();
  reaper.request_started(peer, t0);  // a long poll
  EXPECT_EQ(reaper.sweep(t0 + 60s), 0u);
  reaper.request_ended(peer, t0 + 60s);
  EXPECT_EQ(reaper.sweep(t0 + 65s), 0u);
  EXPECT_EQ(reaper.sweep(t0 + 70s), 1u);
  EXPECT_TRUE(ended(client));
  ::close(client);
}

TEST(ConnectionReaperTest, LeavesConnectionsToOtherPortsAlone) {
  Listener ours;
  Listener other;
  ConnectionReaper reaper(ours.port(), 10s);
  const auto [client, peer] = other.connect();
  const auto t0 = Clock::now();
  reaper.sweep(t0);
  EXPECT_EQ(reaper.sweep(t0 + 60s), 0u);
  ::close(client);
}

}  // namespace
}  // namespace keval
