#include "serve/connection_reaper.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

namespace keval {
namespace {

int port_of(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return -1;
}

// As cpp-httplib names a peer (getnameinfo, numeric host); "" when `fd` has none.
std::string peer_of(int fd) {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) return "";
  const int port = port_of(addr);
  if (port < 0) return "";
  std::array<char, NI_MAXHOST> host{};
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), length, host.data(), host.size(), nullptr, 0, NI_NUMERICHOST)) {
    return "";
  }
  return ConnectionReaper::peer_name(host.data(), port);
}

// The accepted connections to `port` among this process's open files: (fd, peer).
std::vector<std::pair<int, std::string>> connections_to(int port) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    int listening = 0;
    socklen_t size = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0 || port_of(local) != port) continue;
    if (std::string peer = peer_of(fd); !peer.empty()) found.emplace_back(fd, std::move(peer));
  }
  return found;
}

// Whether the socket's unread bytes end a header block: a request waiting for a thread.
bool holds_whole_headers(int fd) {
  std::array<char, 16384> bytes;
  const ssize_t n = ::recv(fd, bytes.data(), bytes.size(), MSG_PEEK | MSG_DONTWAIT);
  return n > 0 && std::string_view(bytes.data(), static_cast<size_t>(n)).find("\r\n\r\n") != std::string_view::npos;
}

}  // namespace

ConnectionReaper::ConnectionReaper(int port, Clock::duration header_deadline)
    : port_(port), deadline_(header_deadline) {}

ConnectionReaper::~ConnectionReaper() { stop(); }

std::string ConnectionReaper::peer_name(const std::string& addr, int port) {
  return addr + ":" + std::to_string(port);
}

void ConnectionReaper::request_started(const std::string& peer, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  seen_[peer] = {now, true};
}

void ConnectionReaper::request_ended(const std::string& peer, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  seen_[peer] = {now, false};
}

size_t ConnectionReaper::sweep(Clock::time_point now) {
  const auto connections = connections_to(port_);
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, Seen> still;
  size_t closed = 0;
  for (const auto& [fd, peer] : connections) {
    const auto it = seen_.find(peer);
    Seen seen = it == seen_.end() ? Seen{now, false} : it->second;
    if (!seen.busy && holds_whole_headers(fd)) seen.whole_at = now;  // a busy one is never shut
    const bool quiet = now - seen.since >= deadline_ && !(seen.whole_at && now - *seen.whole_at < deadline_);
    // the peer is asked again: the descriptor may have been closed and reused since
    if (!seen.busy && quiet && peer_of(fd) == peer) {
      ::shutdown(fd, SHUT_RDWR);  // its thread sees the end and closes it
      ++closed;
      continue;
    }
    still[peer] = seen;
  }
  for (const auto& [peer, seen] : seen_) {
    // marked between the listing and now (a connection gone without its answer: forgotten later)
    if (seen.busy && now - seen.since < deadline_) still.emplace(peer, seen);
  }
  seen_ = std::move(still);
  return closed;
}

void ConnectionReaper::start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, std::chrono::seconds(1));
      if (stopping_) break;
      lock.unlock();
      sweep(Clock::now());
      lock.lock();
    }
  });
}

void ConnectionReaper::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace keval
