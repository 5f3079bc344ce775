#include "engine/results/merge_outputs.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/resume/shard.h"
#include "report/submission_result.h"
#include "report/summary.h"
#include "store/store.h"
#include "store/store_merge.h"

namespace keval {
namespace {

struct Folder {
  std::filesystem::path dir;
  ShardFile shard_file;
  Shard shard;
  bool finished = false;  // summary.json written: the run got to its end
  nlohmann::json summary;
  std::vector<nlohmann::json> lines;
};

Folder read_folder(const std::filesystem::path& dir) {
  Folder folder{dir, read_shard_file(dir)};
  folder.shard = folder.shard_file.shard;
  const auto results = dir / "results.jsonl";
  std::ifstream in(results);
  if (!in) throw std::runtime_error(results.string() + ": no such file (is " + dir.string() + " a keval run's --out?)");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      folder.lines.push_back(nlohmann::json::parse(line));
    } catch (const std::exception& e) {
      throw std::runtime_error(results.string() + ":" + std::to_string(number) + ": not a result: " + e.what());
    }
  }
  const auto summary = dir / "summary.json";
  if (std::ifstream s{summary}) {
    try {
      folder.summary = nlohmann::json::parse(s);
      folder.finished = true;
    } catch (const std::exception& e) {
      throw std::runtime_error(summary.string() + ": not JSON: " + e.what());
    }
  }
  return folder;
}

// Where a result sorts: its origin less the submissions path the shard was given, so shards
// given it as "subs.jsonl" and as "/abs/subs.jsonl" interleave by line.
std::pair<std::string, long> place_of(const nlohmann::json& line, const Folder& folder) {
  std::string origin = line.value("origin", "");
  const std::string& prefix = folder.shard_file.submissions;
  if (!prefix.empty() && origin.rfind(prefix, 0) == 0) origin.erase(0, prefix.size());
  return origin_order(origin);
}

std::string device_mode(const Folder& folder) {
  const auto& env = folder.summary.value("environment", nlohmann::json::object());
  return env.is_object() ? env.value("device_mode", "") : "";
}

}  // namespace

std::pair<std::string, long> origin_order(const std::string& origin) {
  const auto colon = origin.rfind(':');
  if (colon != std::string::npos && colon + 1 < origin.size() &&
      std::all_of(origin.begin() + colon + 1, origin.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return {origin.substr(0, colon), std::stol(origin.substr(colon + 1))};
  }
  return {origin, 0};
}

MergeReport merge_outputs(const MergeOptions& options) {
  if (options.from.empty()) throw std::runtime_error("keval merge: no output folders to merge");
  std::vector<Folder> folders;
  for (const auto& dir : options.from) folders.push_back(read_folder(dir));

  MergeReport report;
  const int count = folders.front().shard.count;
  std::set<int> finished;
  for (const auto& f : folders) {
    if (f.shard.count != count) {
      throw std::runtime_error(f.dir.string() + ": shard " + f.shard.label() + " is not one of " +
                               std::to_string(count) + " like " + folders.front().dir.string() + "'s");
    }
    if (f.finished && !device_mode(folders.front()).empty() && device_mode(f) != device_mode(folders.front())) {
      throw std::runtime_error(f.dir.string() + ": ran in device mode " + device_mode(f) + ", " +
                               folders.front().dir.string() + " in " + device_mode(folders.front()));
    }
    const std::string& fingerprint = folders.front().shard_file.fingerprint;
    if (!fingerprint.empty() && !f.shard_file.fingerprint.empty() && f.shard_file.fingerprint != fingerprint) {
      throw std::runtime_error(f.dir.string() + ": a shard of other submissions (" + f.shard_file.submissions + ") than " +
                               folders.front().dir.string() + " (" + folders.front().shard_file.submissions +
                               "); merge the shards of one submissions file");
    }
    if (f.finished) finished.insert(f.shard.index);
  }
  for (int i = 0; i < count; ++i) {
    if (!finished.count(i)) report.missing.push_back(Shard{i, count}.label());
  }
  if (!report.missing.empty() && !options.partial) {
    std::string list;
    for (const auto& m : report.missing) list += (list.empty() ? "" : ", ") + m;
    throw std::runtime_error("shards not finished or not given: " + list +
                             " (run them again: they resume; or merge what there is with --partial)");
  }

  // One line per submission: the same id and code in two folders is one submission twice (ids
  // are unique in a submissions file, and the shards are of one file), whatever path it was
  // read from.
  std::vector<std::pair<std::pair<std::string, long>, nlohmann::json>> lines;
  std::set<std::pair<std::string, std::string>> seen;
  nlohmann::json environment;
  size_t resumed = 0, same_code = 0;
  for (const auto& f : folders) {
    if (f.finished && environment.is_null()) environment = f.summary.value("environment", nlohmann::json(nullptr));
    if (f.finished) {
      resumed += f.summary.value("resumed", 0);
      same_code += f.summary.value("same_code", 0);
    }
    for (const auto& line : f.lines) {
      if (!seen.emplace(line.value("id", ""), line.value("hash", "")).second) {
        ++report.duplicate_results;
        continue;
      }
      lines.emplace_back(place_of(line, f), line);
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  std::filesystem::create_directories(options.out);
  std::vector<std::filesystem::path> stores;
  for (const auto& f : folders) {
    if (std::filesystem::exists(f.dir / "keval.db")) stores.push_back(f.dir / "keval.db");
  }
  const auto counts = merge_stores(options.out / "keval.db", stores);
  report.evaluations = counts.evaluations;
  report.duplicate_evaluations = counts.duplicates;

  std::vector<SubmissionResult> results;
  for (const auto& [place, line] : lines) results.push_back(SubmissionResult::from_json(line));
  report.results = results.size();
  report.summary = make_summary(results, environment);
  report.summary["resumed"] = resumed;
  report.summary["same_code"] = same_code;
  nlohmann::json from = nlohmann::json::array();
  for (const auto& f : folders) {
    // as seen from OUT, so the summary names no folder of the machine that merged
    std::error_code unknown;
    const std::filesystem::path seen = std::filesystem::proximate(f.dir, options.out, unknown);
    from.push_back(unknown || seen.empty() ? f.dir.filename().string() : seen.string());
  }
  report.summary["merged"] = {{"shards", count}, {"from", from}, {"missing", report.missing}};

  Store store(options.out / "keval.db");
  const int64_t run_id = store.begin_run({"", "keval merge", device_mode(folders.front()), nlohmann::json::object(),
                                          environment});
  report.summary["run_id"] = run_id;
  store.finish_run(run_id, report.summary);
  std::ofstream results_file(options.out / "results.jsonl");
  for (const auto& [place, line] : lines) results_file << line.dump() << "\n";
  std::ofstream(options.out / "summary.json") << report.summary.dump(2) << "\n";
  return report;
}

}  // namespace keval
