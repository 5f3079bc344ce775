#include "engine/results/out_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/out_folder.h"

namespace keval {
namespace {

std::string holder_of(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid = n > 0 ? std::string(text, static_cast<size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "" : " (pid " + pid + ")";
}

}  // namespace

OutLock::OutLock(const std::filesystem::path& out) {
  make_out_folder(out);  // one line naming --out when it cannot be made or written
  const auto path = out / ".keval.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path.string() + ": cannot open lock file: " + std::strerror(errno));
  int rc;
  while ((rc = ::flock(fd_, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int error = errno;
    const std::string holder = holder_of(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) {
      throw OutFolderBusy(out.string() + " is in use by another keval run" + holder +
                          "; wait for it to finish or choose another --out");
    }
    throw std::runtime_error(path.string() + ": cannot lock: " + std::strerror(error));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // the pid only makes the busy message friendlier; the lock itself is held
  }
}

OutLock::~OutLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace keval
