#include "engine/runner/runner_seed.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "engine/runner/runner_exec.h"

namespace keval {
namespace {

std::string seed_key(const RunnerConfig& config) {
  nlohmann::json key = {{"python", config.python}, {"runner", config.runner_dir.string()},
                        {"interpret", config.interpret}, {"env", config.extra_env}};
  return key.dump();
}

struct SeedRegistry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<RunnerSeed>> seeds;
  std::set<std::string> failed;  // a seed that would not start is not tried again
};

SeedRegistry& registry() {
  static SeedRegistry seeds;
  return seeds;
}

}  // namespace

RunnerSeed::RunnerSeed(const RunnerConfig& config, std::chrono::seconds ready_timeout) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    throw HarnessError(std::string("cannot create the seed's socket: ") + std::strerror(errno));
  }
  const std::string log =
      config.log_path.empty() ? "/dev/null" : (config.log_path.parent_path() / "runner-seed.log").string();
  try {
    pid_ = exec_runner(config, {"--seed"}, ends[1], -1, log);
  } catch (...) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw;
  }
  ::close(ends[1]);
  channel_ = ends[0];
  try {
    const nlohmann::json ready = receive(std::chrono::steady_clock::now() + ready_timeout);
    if (ready.value("type", "") != "ready") {
      throw HarnessError("the seed's first message was not `ready`: " + ready.dump().substr(0, 200));
    }
  } catch (const HarnessError& e) {
    shut_down();
    throw HarnessError(std::string(e.what()) + " (log: " + log + ")");
  }
}

RunnerSeed::~RunnerSeed() { shut_down(); }

void RunnerSeed::shut_down() {
  if (channel_ >= 0) ::close(channel_);  // EOF: the seed leaves
  channel_ = -1;
  if (pid_ <= 0) return;
  int status = 0;
  for (int waited = 0; ::waitpid(pid_, &status, WNOHANG) == 0; ++waited) {
    if (waited == 250) {  // 5 s
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

nlohmann::json RunnerSeed::receive(std::chrono::steady_clock::time_point deadline) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw HarnessError("the seed did not answer in time");
    pollfd poll_fd = {channel_, POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) throw HarnessError("poll on the seed failed");
    if (ready <= 0) continue;
    char message[65536];
    const ssize_t n = ::recv(channel_, message, sizeof message, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HarnessError("the seed exited");
    auto parsed = nlohmann::json::parse(std::string(message, static_cast<size_t>(n)), nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) throw HarnessError("the seed wrote something not JSON");
    return parsed;
  }
}

pid_t RunnerSeed::spawn(int stdin_fd, int protocol_fd, int log_fd) {
  std::lock_guard lock(mutex_);
  const std::string request = R"({"op": "spawn"})";
  iovec part = {const_cast<char*>(request.data()), request.size()};
  const int fds[3] = {stdin_fd, protocol_fd, log_fd};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
  msghdr header = {};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  cmsghdr* rights = CMSG_FIRSTHDR(&header);
  rights->cmsg_level = SOL_SOCKET;
  rights->cmsg_type = SCM_RIGHTS;
  rights->cmsg_len = CMSG_LEN(sizeof fds);
  std::memcpy(CMSG_DATA(rights), fds, sizeof fds);
  ssize_t sent;
  do sent = ::sendmsg(channel_, &header, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) throw HarnessError(std::string("cannot reach the seed: ") + std::strerror(errno));
  const nlohmann::json reply = receive(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  if (reply.value("type", "") != "spawned" || !reply.contains("pid") || !reply["pid"].is_number_integer()) {
    throw HarnessError("the seed did not fork a zygote: " + reply.dump().substr(0, 300));
  }
  return reply["pid"].get<pid_t>();
}

std::shared_ptr<RunnerSeed> seed_for(const RunnerConfig& config) {
  SeedRegistry& seeds = registry();
  const std::string key = seed_key(config);
  std::lock_guard lock(seeds.mutex);
  if (auto found = seeds.seeds.find(key); found != seeds.seeds.end()) return found->second;
  if (seeds.failed.contains(key)) return nullptr;
  try {
    auto seed = std::make_shared<RunnerSeed>(config);
    seeds.seeds[key] = seed;
    return seed;
  } catch (const HarnessError&) {
    seeds.failed.insert(key);
    return nullptr;
  }
}

void drop_seed(const RunnerConfig& config) {
  SeedRegistry& seeds = registry();
  std::lock_guard lock(seeds.mutex);
  seeds.seeds.erase(seed_key(config));
}

}  // namespace keval
