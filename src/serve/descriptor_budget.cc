#include "serve/descriptor_budget.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "serve/connection_limit.h"

namespace keval {
namespace {

// Counted from the code, with room for what opens a file for a moment:
// - always: stdin, stdout, stderr; the listening socket and one accepted socket on its way to
//   the limit; queue.db with its WAL and shared memory; the --out lock; logs/serve.log; the
//   runner seed's socket and pipes; the reaper's read of /proc/net/tcp; TLS files and
//   /dev/urandom while they are read.
constexpr size_t kFixedDescriptors = 32;
// - each lane, while a batch runs: keval.db with its WAL and shared memory, the lane folder's
//   lock, results.jsonl, the lane's log, and files and pipes a run opens for a moment (the
//   summary, a scratch folder's lock, the Python tools keval starts).
constexpr size_t kLaneDescriptors = 16;
// - each worker slot: its zygote's two pipes and uid lease, and while it starts the pipes'
//   other ends and its log, handed to the seed and then closed.
constexpr size_t kSlotDescriptors = 8;

std::string limit_text(size_t limit) { return std::to_string(limit) + " (ulimit -n)"; }

}  // namespace

size_t descriptors_besides_connections(const DescriptorNeeds& needs) {
  // a connection over the limit holds its descriptor until a refusing thread answers it
  const size_t refusals = kRefusingThreads + kRefusalsQueued;
  return kFixedDescriptors + refusals + needs.lanes * kLaneDescriptors + needs.slots * kSlotDescriptors;
}

size_t gpus_at_most(const std::string& device, const std::vector<int>& gpus) {
  if (!gpus.empty()) return gpus.size();
  if (device == "cpu") return 1;
  size_t found = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      ++found;
    }
  }
  return std::max<size_t>(found, 1);
}

size_t raise_descriptor_limit(size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return SIZE_MAX;  // none known: nothing to fit
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted && limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? SIZE_MAX : static_cast<size_t>(limit.rlim_cur);
}

size_t fit_max_connections(size_t asked, size_t default_max, size_t limit, size_t reserve, std::string& note) {
  note.clear();
  const size_t room = limit > reserve ? limit - reserve : 0;
  if (asked > 0) {
    if (asked <= room) return asked;
    throw std::runtime_error("--max-connections " + std::to_string(asked) + " needs " + std::to_string(asked + reserve) +
                             " file descriptors with the " + std::to_string(reserve) +
                             " the server holds besides its connections, over the limit of " + limit_text(limit) +
                             ": give --max-connections " + std::to_string(room) + " or less, or raise the limit");
  }
  if (room == 0) {
    throw std::runtime_error("the file-descriptor limit of " + limit_text(limit) + " leaves no room for a connection "
                             "beside the " + std::to_string(reserve) + " the server holds otherwise (--max-connections " +
                             "cannot fit): raise the limit");
  }
  if (default_max <= room) return default_max;
  note = "holding at most " + std::to_string(room) + " connections, not the default " + std::to_string(default_max) +
         " (--max-connections): the file-descriptor limit of " + limit_text(limit) + " leaves room for no more";
  return room;
}

}  // namespace keval
