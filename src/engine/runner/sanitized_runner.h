#pragma once
// `keval run --sanitize`: an extra run of the candidate's small cases under NVIDIA's
// compute-sanitizer memcheck. Guard bands are the default out-of-bounds check (memcheck misses
// a store that stays inside the caching allocator's rounding); memcheck adds what guard bands
// cannot see: reads out of bounds, misaligned and freed-memory accesses.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/runner/job_runner.h"

namespace keval {

struct MemcheckReport {
  bool summary_found = false;  // the log held an "ERROR SUMMARY" line
  int errors = 0;
  std::vector<std::string> first_errors;  // up to 3 lines naming an error, without the prefix
};

// Reads compute-sanitizer's log text.
MemcheckReport parse_memcheck_log(const std::string& text);

// compute-sanitizer's path: $KEVAL_COMPUTE_SANITIZER, else on PATH, else under
// /usr/local/cuda/bin. Throws HarnessError (one line) when there is none.
std::string find_compute_sanitizer();

// The argv prefix that runs the runner under memcheck, following the zygote's forked jobs.
std::vector<std::string> memcheck_wrapper(const std::string& tool, const std::filesystem::path& log);

// Runs each job on `inner` (a runner process under memcheck_wrapper writing `log`), then calls
// `finish` to end that process (memcheck writes its summary when the process exits), and adds
// a {"type": "memcheck", "errors", "summary_found", "first_errors", "log"} message.
class SanitizedRunner : public JobRunner {
 public:
  SanitizedRunner(JobRunner& inner, std::function<void()> finish, std::filesystem::path log)
      : inner_(inner), finish_(std::move(finish)), log_(std::move(log)) {}
  using JobRunner::run;
  JobOutcome run(nlohmann::json request, std::chrono::milliseconds timeout,
                 const MessageHook& on_message) override;

 private:
  JobRunner& inner_;
  std::function<void()> finish_;
  std::filesystem::path log_;
};

}  // namespace keval
