#pragma once
// Submissions from JSON Lines: keval's native fields, KernelBenchX's
// {"predict", "file"} and TritonBench's {"predict", ...} (which needs a task).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "submission/submission.h"

namespace keval {

// One non-blank line. A malformed line gives a Submission with `error`
// "<origin>: <what is wrong>", never an exception.
Submission parse_submission_line(std::string_view line, const std::string& origin);

// Every non-blank line of the file, origin "<path>:<line>". Throws
// std::runtime_error when the file is unreadable or has no non-blank line.
std::vector<Submission> read_jsonl_file(const std::filesystem::path& path);

}  // namespace keval
