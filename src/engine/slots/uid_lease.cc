#include "engine/slots/uid_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace keval {

std::optional<UidLease> UidLease::acquire(int count, int first, int range,
                                          const std::filesystem::path& lock_dir) {
  std::error_code error;
  std::filesystem::create_directories(lock_dir, error);
  UidLease lease;
  for (int uid = first; uid < first + range && static_cast<int>(lease.uids_.size()) < count; ++uid) {
    const auto path = lock_dir / (std::to_string(uid) + ".lock");
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {  // another run holds it
      ::close(fd);
      continue;
    }
    lease.uids_.push_back(uid);
    lease.lock_fds_.push_back(fd);
  }
  if (static_cast<int>(lease.uids_.size()) < count) return std::nullopt;
  return lease;
}

UidLease::UidLease(UidLease&& other) noexcept
    : uids_(std::move(other.uids_)), lock_fds_(std::move(other.lock_fds_)) {
  other.lock_fds_.clear();
}

UidLease::~UidLease() {
  for (int fd : lock_fds_) ::close(fd);  // closing releases the lock
}

}  // namespace keval
