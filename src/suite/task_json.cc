#include "suite/task_json.h"

namespace keval {

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
    j["cases"].push_back({{"name", c.name}, {"small", c.small}, {"params", c.params}, {"dtypes", task.dtypes_of(c)}});
  }
  j["tolerance"] = nlohmann::json::object();
  for (const auto& [dtype, t] : task.tolerance) {
    j["tolerance"][dtype] = {{"atol", t.atol}, {"rtol", t.rtol}, {"reason", t.reason}};
  }
  j["flops"] = task.flops;
  j["bytes"] = task.bytes;
  j["source"] = task.source;
  j["notes"] = task.notes;
  j["dir"] = task.dir.string();
  return j;
}

}  // namespace keval
