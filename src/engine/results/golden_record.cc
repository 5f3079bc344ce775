#include "engine/results/golden_record.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "engine/runner/runner_process.h"

namespace keval {
namespace {

const char* kKeyFields[] = {"gpu", "driver", "torch", "triton"};  // also the file's name
// How samples are taken: medians of another sampling loop (e.g. before the launch cover, whose
// samples included the host's launch latency) are not comparable.
const char* kMethodFields[] = {"timing_note"};

}  // namespace

nlohmann::json GoldenRecord::key_of(const nlohmann::json& environment) {
  nlohmann::json key = nlohmann::json::object();
  for (const char* field : kKeyFields) key[field] = environment.value(field, nlohmann::json(nullptr));
  for (const char* field : kMethodFields) key[field] = environment.value(field, nlohmann::json(nullptr));
  return key;
}

GoldenRecord GoldenRecord::from_results(const std::vector<SubmissionResult>& results,
                                        const nlohmann::json& environment,
                                        const std::map<std::string, int>& task_versions) {
  GoldenRecord record;
  record.data_ = {{"keval_golden_record", 1}, {"key", key_of(environment)},
                  {"timing_method", nullptr}, {"tasks", nlohmann::json::object()}};
  for (const auto& r : results) {
    if (!r.exec()) continue;  // a failing golden has no time worth reusing
    nlohmann::json cases = nlohmann::json::object();
    for (const auto& c : r.cases) {
      if (c.time_ms) cases[c.name + "/" + c.dtype] = {{"median_ms", *c.time_ms}, {"samples", c.samples}};
    }
    auto version = task_versions.find(r.task);
    record.data_["tasks"][r.task] = {{"version", version == task_versions.end() ? 0 : version->second},
                                     {"cases", cases}};
    if (!r.timing_method.empty()) record.data_["timing_method"] = r.timing_method;
  }
  return record;
}

GoldenRecord GoldenRecord::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot read the golden record");
  auto data = nlohmann::json::parse(in, nullptr, false);
  if (data.is_discarded() || !data.is_object() || !data.contains("keval_golden_record") ||
      !data.contains("key") || !data.contains("tasks")) {
    throw std::runtime_error(path.string() + ": not a keval golden record (from `keval golden record`)");
  }
  GoldenRecord record;
  record.data_ = std::move(data);
  return record;
}

void GoldenRecord::save(const std::filesystem::path& path) const {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << data_.dump(2) << "\n";
}

std::string GoldenRecord::mismatch(const nlohmann::json& environment) const {
  nlohmann::json ours = key_of(environment);
  if (ours == data_["key"]) return "";
  return "the golden record was made with " + data_["key"].dump() + " but this run has " +
         ours.dump() + ": record the goldens again with `keval golden record`";
}

std::optional<double> GoldenRecord::median_ms(const std::string& task, int version,
                                              const std::string& case_name,
                                              const std::string& dtype) const {
  const auto& tasks = data_["tasks"];
  if (!tasks.contains(task) || tasks[task].value("version", -1) != version) return std::nullopt;
  const auto& cases = tasks[task]["cases"];
  const std::string key = case_name + "/" + dtype;
  if (!cases.contains(key)) return std::nullopt;
  return cases[key].value("median_ms", 0.0);
}

std::string GoldenRecord::file_name_for(const nlohmann::json& environment) {
  std::string name;
  for (const char* field : kKeyFields) {
    auto value = environment.value(field, nlohmann::json(nullptr));
    if (!name.empty()) name += '_';
    name += value.is_string() ? value.get<std::string>() : std::string("none");
  }
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  }
  return name + ".json";
}

std::string golden_record_path(const std::string& golden_from, const nlohmann::json& environment) {
  if (!golden_from.empty()) return golden_from;
  if (const char* dir = std::getenv("KEVAL_GOLDEN_DIR"); dir && *dir) {
    auto candidate = std::filesystem::path(dir) / GoldenRecord::file_name_for(environment);
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  return "";
}

std::optional<GoldenRecord> use_golden_record(const std::string& path, RunSettings& settings,
                                              nlohmann::json& environment) {
  if (path.empty() || !settings.timing.enabled || settings.baselines.empty() ||
      settings.baselines.front() != "golden") {
    return std::nullopt;
  }
  GoldenRecord recorded = GoldenRecord::load(path);
  if (std::string why = recorded.mismatch(environment); !why.empty()) {
    throw HarnessError(path + ": " + why);
  }
  settings.baselines.erase(settings.baselines.begin());
  // by its file name: its folder is this machine's, and the run's key holds its content's hash
  environment["golden_record"] = std::filesystem::path(path).filename().string();
  return recorded;
}

}  // namespace keval
