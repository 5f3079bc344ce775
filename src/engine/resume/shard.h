#pragma once
// `--shard I/N`: a deterministic slice of the submissions, chosen by content hash, so a shard
// holds the same submissions whenever it runs (a rerun resumes from its own keval.db) and two
// lines with the same code for the same task always fall in the same shard.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "submission/submission.h"

namespace keval {

struct Shard {
  int index = 0;  // 0 .. count-1
  int count = 1;

  std::string label() const { return std::to_string(index) + "/" + std::to_string(count); }
  bool operator==(const Shard&) const = default;
};

// Parses "I/N" (0 <= I < N). Throws std::invalid_argument with a one-line reason naming --shard.
Shard parse_shard(const std::string& text);

// Which shard a submission belongs to: its content hash's first 64 bits modulo N.
int shard_of(const Submission& submission, int count);

// The submissions of one shard, in their original order.
std::vector<Submission> select_shard(const std::vector<Submission>& all, const Shard& shard);

// What every shard of one evaluation shares, whatever path its submissions were read from
// (relative, absolute, a copy on another cluster): a hash of all the submissions' ids and
// content hashes, in order.
std::string submissions_fingerprint(const std::vector<Submission>& all);

// What OUT/shard.json says (read by `keval merge`).
struct ShardFile {
  Shard shard;                // {0,1} when there is no shard.json (a whole run)
  std::string submissions;    // the path as given to keval run ("" when not written)
  std::string fingerprint;    // submissions_fingerprint of all of them ("" from an older keval)
};

// OUT/shard.json: which slice of which submissions an output folder holds.
void write_shard_file(const std::filesystem::path& out, const Shard& shard, const std::string& submissions,
                      const std::string& fingerprint, size_t selected, size_t total);
// Throws std::runtime_error naming the file and field when shard.json cannot be read.
ShardFile read_shard_file(const std::filesystem::path& out);

}  // namespace keval
