#pragma once
// An exclusive flock(2) on a file, held for the object's lifetime: serialises work on a shared
// folder between keval processes (two runs adapting the same peer suite at once, one per GPU,
// had one reading task files while the other rewrote them). Released when the process dies.
#include <filesystem>

namespace keval {

class FileLock {
 public:
  // Blocks until the lock is held; creates the file (and its folder) when missing. Throws
  // std::runtime_error naming the file when it cannot be opened.
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace keval
