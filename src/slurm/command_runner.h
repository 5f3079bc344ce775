#pragma once
// Running an outside command (sbatch, squeue, scancel) and reading what it printed: behind an
// interface so the Slurm logic is tested with a fake.
#include <string>
#include <vector>

namespace keval {

struct CommandResult {
  int status = 0;  // exit status; 127 when the program could not be started
  std::string out;
  std::string err;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual CommandResult run(const std::vector<std::string>& argv) = 0;
};

// The real one: fork and exec (PATH is searched), stdout and stderr captured.
class ProcessRunner : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv) override;
};

}  // namespace keval
