#pragma once
// `keval merge`: the output folders of a sharded evaluation become one, as if one run had
// judged every submission: results.jsonl in the submissions' order, summary.json over all of
// them, and one keval.db (duplicates resolved by evaluation key).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct MergeOptions {
  std::vector<std::filesystem::path> from;
  std::filesystem::path out;
  bool partial = false;  // merge even when shards are missing or unfinished
};

struct MergeReport {
  size_t results = 0;
  size_t duplicate_results = 0;  // lines of the same submission found in more than one folder
  size_t evaluations = 0;        // added to OUT/keval.db
  size_t duplicate_evaluations = 0;
  std::vector<std::string> missing;  // shards not found or unfinished (with --partial)
  nlohmann::json summary;
};

// Throws std::runtime_error with a one-line reason naming the folder or file: a folder without
// results, shards of different counts or device modes, missing or unfinished shards (unless
// `partial`), a results line that is not JSON.
MergeReport merge_outputs(const MergeOptions& options);

// Sort key of a result's origin: "file.jsonl:12" orders by file, then line as a number.
std::pair<std::string, long> origin_order(const std::string& origin);

}  // namespace keval
