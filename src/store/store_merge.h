#pragma once
// Merging keval.db files (shards of one evaluation) into one store. An evaluation whose key the
// target already holds is skipped, so merging twice, or merging overlapping shards, adds
// nothing twice; runs, case figures, samples and timed cases come along with their evaluation.
// A run merged before is not copied again.
#include <filesystem>
#include <vector>

namespace keval {

struct StoreMergeCounts {
  size_t runs = 0;         // run records copied
  size_t evaluations = 0;  // evaluations added
  size_t duplicates = 0;   // evaluations skipped: their key was already there
};

// Creates `into` when missing. Each source is read without writing it (in a folder this user
// cannot write too), unless an older keval's schema must be brought up to date first. Throws
// StoreError naming the file that failed.
StoreMergeCounts merge_stores(const std::filesystem::path& into,
                              const std::vector<std::filesystem::path>& sources);

}  // namespace keval
