#pragma once
// keval.db read as the latency dataset (docs/dataset.md): one record per timed evaluation,
// case and dtype, passing or not. Built from what the store keeps (evaluations, samples,
// timed_cases, runs), so a new record field needs no new run. Version 1 stores are read too:
// their records have no shapes, and a failed evaluation gives one record without a case.
#include <filesystem>

#include <nlohmann/json.hpp>

namespace keval {

// Opens `db` read-only (it is never migrated or changed). Throws StoreError naming the file.
nlohmann::json read_dataset_records(const std::filesystem::path& db);

}  // namespace keval
