#include "suite/task_json.h"

namespace keval {
namespace {

nlohmann::json tolerances_json(const std::map<std::string, Tolerance>& tolerances) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [dtype, t] : tolerances) out[dtype] = {{"atol", t.atol}, {"rtol", t.rtol}, {"reason", t.reason}};
  return out;
}

}  // namespace

nlohmann::json task_json(const Task& task, bool full) {
  nlohmann::json j = {{"name", task.name},           {"version", task.version},
                      {"track", task.track},         {"category", task.category},
                      {"difficulty", task.difficulty}, {"entry", task.entry},
                      {"signature", task.signature}, {"dtypes", task.dtypes},
                      {"inplace", task.inplace},     {"cases", task.cases.size()}};
  if (!full) return j;
  j["instruction"] = task.instruction;
  j["cases"] = nlohmann::json::array();
  for (const auto& c : task.cases) {
    nlohmann::json one = {{"name", c.name}, {"small", c.small}, {"params", c.params}, {"dtypes", task.dtypes_of(c)}};
    if (!c.tolerance.empty()) one["tolerance"] = tolerances_json(c.tolerance);
    j["cases"].push_back(std::move(one));
  }
  j["tolerance"] = tolerances_json(task.tolerance);
  j["flops"] = task.flops;
  j["bytes"] = task.bytes;
  j["precision"] = task.precision;
  j["source"] = task.source;
  j["notes"] = task.notes;
  j["dir"] = task.dir.string();
  return j;
}

}  // namespace keval
