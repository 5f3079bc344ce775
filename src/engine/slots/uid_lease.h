#pragma once
// Unprivileged uids for worker slots, leased for the life of a run. Each job runs as its slot's
// uid and the runner kills every process of that uid after the job, so two keval runs on one
// machine must never share a uid: each uid is held by an exclusive lock file.
#include <filesystem>
#include <optional>
#include <vector>

namespace keval {

class UidLease {
 public:
  // Leases `count` free uids from [first, first + range). nullopt when fewer are free.
  static std::optional<UidLease> acquire(int count, int first = 61000, int range = 4096,
                                         const std::filesystem::path& lock_dir = "/var/tmp/keval-uids");
  UidLease(UidLease&& other) noexcept;
  UidLease& operator=(UidLease&&) = delete;
  UidLease(const UidLease&) = delete;
  ~UidLease();

  const std::vector<int>& uids() const { return uids_; }

 private:
  UidLease() = default;
  std::vector<int> uids_;
  std::vector<int> lock_fds_;
};

}  // namespace keval
