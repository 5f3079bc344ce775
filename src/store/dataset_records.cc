#include "store/dataset_records.h"

#include <map>
#include <set>

#include "stats/bootstrap.h"
#include "stats/summary_stats.h"
#include "store/sqlite_db.h"
#include "store/sqlite_statement.h"
#include "store/store.h"

namespace keval {
namespace {

using nlohmann::json;

// The file is checked before SQLite opens it: a read-only open never creates one.
const std::filesystem::path& existing_file(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw StoreError(path.string() + ": no such file");
  return path;
}

// A text field, or `fallback` when it is missing or not text (stored messages may hold null).
std::string text_or(const json& object, const char* key, const std::string& fallback = "") {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

json parse_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  json parsed = json::parse(text, nullptr, false);
  return parsed.is_discarded() ? json(nullptr) : parsed;
}

std::vector<double> positive(const json& samples) {
  std::vector<double> out;
  for (const auto& v : samples) {
    if (v.is_number() && v.get<double>() > 0) out.push_back(v.get<double>());
  }
  return out;
}

struct CaseKey {
  std::string name, dtype;
  bool operator<(const CaseKey& o) const { return std::tie(name, dtype) < std::tie(o.name, o.dtype); }
};

// Per case: the timing messages of the evaluation's facts (samples of every contender, clocks).
std::map<CaseKey, std::map<std::string, json>> timings_of(const json& facts) {
  std::map<CaseKey, std::map<std::string, json>> out;
  if (!facts.is_object() || !facts.contains("timing") || !facts["timing"].is_object()) return out;
  for (const auto& message : facts["timing"].value("messages", json::array())) {
    if (text_or(message, "type") != "timing") continue;
    out[{text_or(message, "case"), text_or(message, "dtype")}][text_or(message, "who", "candidate")] = message;
  }
  return out;
}

struct RunEnvironment {
  json environment;
  json settings;
};

std::map<int64_t, RunEnvironment> read_runs(sqlite3* db) {
  std::map<int64_t, RunEnvironment> runs;
  Statement query(db, "SELECT id, environment_json, settings_json FROM runs");
  while (query.step()) {
    runs[query.integer(0)] = {parse_or_null(query.text(1)), parse_or_null(query.text(2))};
  }
  return runs;
}

json env_field(const json& environment, const char* key) {
  return environment.is_object() && environment.contains(key) ? environment[key] : json(nullptr);
}

// The record's figures for one case from its timing messages: latency only for a pass.
void fill_timing(json& record, const std::map<std::string, json>* contenders, const std::string& baseline,
                 bool passed) {
  record["timer_method"] = nullptr;
  record["sample_count"] = 0;
  record["median_ms"] = record["ci95_low_ms"] = record["ci95_high_ms"] = nullptr;
  record["baseline"] = baseline.empty() ? json(nullptr) : json(baseline);
  record["baseline_ms"] = nullptr;
  record["baselines_ms"] = json::object();
  record["stop_reason"] = nullptr;
  record["sm_clock_mhz"] = record["sm_clock_default_mhz"] = nullptr;
  record["latency_ms"] = nullptr;
  if (!contenders) return;
  for (const auto& [who, message] : *contenders) {
    std::vector<double> samples = positive(message.value("samples_ms", json::array()));
    if (who != "candidate") {
      if (!samples.empty()) record["baselines_ms"][who] = median(samples);
      if (who == baseline && !samples.empty()) record["baseline_ms"] = median(samples);
      continue;
    }
    record["timer_method"] = text_or(message, "method");
    record["stop_reason"] = message.contains("stop_reason") ? message["stop_reason"] : json(nullptr);
    record["sm_clock_mhz"] = message.contains("sm_clock_mhz") ? message["sm_clock_mhz"] : json(nullptr);
    record["sm_clock_default_mhz"] =
        message.contains("sm_clock_default_mhz") ? message["sm_clock_default_mhz"] : json(nullptr);
    record["sample_count"] = samples.size();
    if (samples.empty()) continue;
    record["median_ms"] = median(samples);
    const Interval ci = bootstrap_median_ci(samples);
    record["ci95_low_ms"] = ci.low;
    record["ci95_high_ms"] = ci.high;
    if (passed) record["latency_ms"] = record["median_ms"];
  }
}

}  // namespace

json read_dataset_records(const std::filesystem::path& path) {
  const SqliteDb db(existing_file(path), SqliteDb::Mode::kReadOnly);
  const bool v2 = has_column(db.get(), "evaluations", "suite");
  const auto runs = read_runs(db.get());
  std::map<int64_t, std::vector<std::pair<CaseKey, json>>> planned;
  if (v2) {
    Statement query(db.get(), "SELECT evaluation_id, case_name, dtype, params_json FROM timed_cases ORDER BY rowid");
    while (query.step()) {
      planned[query.integer(0)].push_back({{query.text(1), query.text(2)}, parse_or_null(query.text(3))});
    }
  }
  const std::string v2_columns = v2 ? "e.suite, e.suite_version, e.program_x" : "NULL, NULL, NULL";
  Statement query(db.get(),
                  "SELECT e.id, e.run_id, e.eval_key, e.submission_id, e.submission_hash, e.task, "
                  "e.task_version, e.verdict, e.reasons_json, e.facts_json, e.result_json, e.created_at, "
                  "s.code, " + v2_columns + " FROM evaluations e LEFT JOIN submissions s "
                  "ON s.hash = e.submission_hash ORDER BY e.id");
  json records = json::array();
  while (query.step()) {
    const int64_t evaluation_id = query.integer(0), run_id = query.integer(1);
    const std::string verdict = query.text(7);
    if (verdict == "bad_submission") continue;  // no program ran: not a timed evaluation
    const auto run = runs.find(run_id);
    const json environment = run != runs.end() ? run->second.environment : json(nullptr);
    const json settings = run != runs.end() ? run->second.settings : json(nullptr);
    const bool timing_on = settings.is_object() && settings.value("timing", json::object()).value("enabled", true);
    if (!timing_on) continue;
    const json facts = parse_or_null(query.text(9));
    const json result = parse_or_null(query.text(10));
    const auto timings = timings_of(facts);
    // The cases: as planned (version 2), else those the result or the samples name.
    std::vector<std::pair<CaseKey, json>> cases;
    if (planned.count(evaluation_id)) {
      cases = planned[evaluation_id];
    } else if (!query.is_null(13)) {
      continue;  // stored by a version 2 keval with no case to time
    } else {
      std::set<CaseKey> seen;
      for (const auto& c : result.is_object() ? result.value("cases", json::array()) : json::array()) {
        seen.insert({text_or(c, "name"), text_or(c, "dtype")});
      }
      for (const auto& [key, contenders] : timings) seen.insert(key);
      for (const auto& key : seen) cases.push_back({key, nullptr});
      if (cases.empty()) cases.push_back({{"", ""}, nullptr});
    }
    const std::string baseline = result.is_object() ? text_or(result, "baseline") : "";
    for (const auto& [key, shapes] : cases) {
      json record;
      record["source_db"] = std::filesystem::absolute(path).string();
      record["run_id"] = run_id;
      record["evaluation_id"] = evaluation_id;
      record["eval_key"] = query.text(2);
      record["submission_id"] = query.text(3);
      record["submission_hash"] = query.text(4);
      record["task"] = query.text(5);
      record["task_version"] = query.integer(6);
      record["suite"] = query.is_null(13) ? json(nullptr) : json(query.text(13));
      record["suite_version"] = query.is_null(14) ? json(nullptr) : json(query.text(14));
      record["case"] = key.name.empty() ? json(nullptr) : json(key.name);
      record["dtype"] = key.dtype.empty() ? json(nullptr) : json(key.dtype);
      record["shapes"] = shapes;
      record["program"] = query.text(12);
      record["program_x"] = query.is_null(15) || query.text(15).empty() ? json(nullptr) : json(query.text(15));
      record["verdict"] = verdict;
      record["reasons"] = parse_or_null(query.text(8));
      auto found = timings.find(key);
      fill_timing(record, found == timings.end() ? nullptr : &found->second, baseline, verdict == "pass");
      for (const char* field : {"gpu", "driver", "torch", "triton", "keval_version", "device_mode"}) {
        record[field] = env_field(environment, field);
      }
      record["quick_correctness"] = settings.is_object() ? settings.value("quick_correctness", false) : false;
      record["created_at"] = query.text(11);
      records.push_back(std::move(record));
    }
  }
  return records;
}

}  // namespace keval
