#pragma once
// One run at a time per output folder: two runs writing the same keval.db, results.jsonl and
// job folders at once raced on evaluation keys and on each other's job files, and stored the
// harness's own failures as verdicts. The lock is an flock on OUT/.keval.lock, released when the
// process ends however it ends, so a killed run never leaves the folder locked.
#include <filesystem>
#include <stdexcept>

namespace keval {

class OutFolderBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutLock {
 public:
  // Takes the lock without waiting. Throws OutFolderBusy (one line naming the folder and the
  // pid holding it) when another run has it, std::runtime_error when the file cannot be made.
  explicit OutLock(const std::filesystem::path& out);
  ~OutLock();
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace keval
