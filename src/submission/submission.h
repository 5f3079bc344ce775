#pragma once
// One candidate to evaluate, as read from a submissions file or folder.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct Submission {
  std::string id;      // given "id", else the first 12 hex chars of hash
  std::string task;    // as given; the controller checks it against the suite
  std::string code;    // Python source to evaluate (extracted from model text where needed)
  std::string origin;  // "path/file.jsonl:12" or "path/softmax.py"
  std::string error;   // non-empty: unusable (verdict bad_submission), one line
  std::string hash;    // sha256 hex of task + '\n' + code (dedup, resume)
  // What `keval generate` recorded (model, sample, tokens, latency, cost, prompt template and
  // retrieved example); null for submissions from elsewhere. Not part of the hash.
  nlohmann::json generation;
};

inline constexpr std::size_t kDefaultIdLength = 12;

// A usable submission: hash from task and code, id from the hash unless given.
Submission usable_submission(std::string task, std::string code, std::string id,
                             std::string origin);

// An unusable one. `error` is the full one-line message (origin included). Its
// hash is of the raw text (the line or the file), so two different bad lines get
// different ids; `task` and `id` as far as they were read.
Submission bad_submission(std::string task, std::string id, std::string origin,
                          std::string error, std::string_view raw_text);

// Reads a .jsonl file, a .py file, or a folder of those (sorted by name, not
// recursive; other files ignored). A bad line or file becomes a Submission with
// `error` set and reading goes on. Throws std::runtime_error, with a one-line
// message naming the path, for: missing path, unreadable file or folder, an
// empty .jsonl file, a folder with no .py/.jsonl file, an unsupported extension, an id given
// twice (unique_ids.h).
std::vector<Submission> read_submissions(const std::filesystem::path& path);

}  // namespace keval
