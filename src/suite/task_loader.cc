#include "suite/task_loader.h"

#include <set>

#include <toml++/toml.h>

#include "common/near_name.h"

namespace keval {
namespace {

const std::vector<std::string> kTaskKeys = {
    "name", "version", "track", "category", "difficulty", "entry", "signature", "instruction", "held_out",
    "dtypes", "inplace", "flops", "bytes", "tolerance", "cases", "source", "notes", "require_kernel", "shared_inputs", "inputs_on_device", "compute_rate",
    "check_reference_defined", "adapter", "precision"};
const std::vector<std::string> kCaseKeys = {"name", "small", "params", "dtypes", "tolerance"};
const std::vector<std::string> kToleranceKeys = {"atol", "rtol", "reason"};
const std::vector<std::string> kDtypes = {"float32", "float16", "bfloat16", "float8_e4m3fn",
                                          "float8_e5m2", "int8", "int32"};
// The measured matmul rates (ceilings.json) a task's flops may be bounded by.
const std::vector<std::string> kComputeRates = {"float32", "float32_ieee", "float16", "bfloat16"};
// judge/precision_check.h says what each means
const std::vector<std::string> kPrecisions = {"fp32", "tf32", "any"};

// Reads fields of one toml table, naming file, line and field in every error.
class FieldReader {
 public:
  FieldReader(const std::string& file, const toml::table& table, std::string prefix)
      : file_(file), table_(table), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& field,
                         const std::string& what) const {
    int line = node ? static_cast<int>(node->source().begin.line)
                    : static_cast<int>(table_.source().begin.line);
    throw TaskFileError(file_ + ":" + std::to_string(line) + ": " + prefix_ + field + ": " + what);
  }

  void reject_unknown(const std::vector<std::string>& known) const {
    for (const auto& [key, node] : table_) {
      std::string name(key.str());
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail(&node, name, "unknown field" + did_you_mean(name, known));
      }
    }
  }

  const toml::node* find(const std::string& field, bool required) const {
    const toml::node* node = table_.get(field);
    if (!node && required) {
      std::string near;
      for (const auto& [key, value] : table_) {
        if (nearest_name(key.str(), {field}) == field) near = std::string(key.str());
      }
      fail(nullptr, field, "missing required field" +
                               (near.empty() ? "" : " (found \"" + near + "\": a misspelling?)"));
    }
    return node;
  }

  std::string text(const std::string& field, bool required = true) const {
    const toml::node* node = find(field, required);
    if (!node) return "";
    if (!node->is_string()) fail(node, field, "must be a string");
    std::string value = *node->value<std::string>();
    if (required && value.empty()) fail(node, field, "must not be empty");
    return value;
  }

  int64_t integer(const std::string& field, int64_t low, int64_t high) const {
    const toml::node* node = find(field, true);
    if (!node->is_integer()) fail(node, field, "must be an integer");
    int64_t value = *node->value<int64_t>();
    if (value < low || value > high) {
      fail(node, field, "must be between " + std::to_string(low) + " and " + std::to_string(high));
    }
    return value;
  }

  double number(const std::string& field) const {
    const toml::node* node = find(field, true);
    if (!node->is_number()) fail(node, field, "must be a number");
    double value = *node->value<double>();
    if (value < 0) fail(node, field, "must be >= 0");
    return value;
  }

  bool flag(const std::string& field, bool fallback) const {
    const toml::node* node = find(field, false);
    if (!node) return fallback;
    if (!node->is_boolean()) fail(node, field, "must be true or false");
    return *node->value<bool>();
  }

  std::vector<std::string> dtypes(const std::string& field, bool required) const {
    const toml::node* node = find(field, required);
    std::vector<std::string> out;
    if (!node) return out;
    const toml::array* array = node->as_array();
    if (!array || array->empty()) fail(node, field, "must be a non-empty list of dtype names");
    for (const auto& item : *array) {
      if (!item.is_string()) fail(&item, field, "must list dtype names as strings");
      std::string dtype = *item.value<std::string>();
      if (std::find(kDtypes.begin(), kDtypes.end(), dtype) == kDtypes.end()) {
        fail(&item, field, "unknown dtype \"" + dtype + "\"" + did_you_mean(dtype, kDtypes));
      }
      out.push_back(dtype);
    }
    return out;
  }

  // A table of tolerances keyed by dtype, each dtype among `allowed`.
  std::map<std::string, Tolerance> tolerances(const std::string& field, bool required,
                                              const std::vector<std::string>& allowed) const {
    std::map<std::string, Tolerance> out;
    const toml::node* node = find(field, required);
    if (!node) return out;
    const toml::table* table = node->as_table();
    if (!table) fail(node, field, "must be a table keyed by dtype");
    for (const auto& [key, entry] : *table) {
      std::string dtype(key.str());
      if (std::find(allowed.begin(), allowed.end(), dtype) == allowed.end()) {
        fail(&entry, field + "." + dtype, "dtype not listed in dtypes" + did_you_mean(dtype, allowed));
      }
      if (!entry.is_table()) fail(&entry, field + "." + dtype, "must be a table");
      FieldReader entry_reader(file_, *entry.as_table(), prefix_ + field + "." + dtype + ".");
      entry_reader.reject_unknown(kToleranceKeys);
      out[dtype] = {entry_reader.number("atol"), entry_reader.number("rtol"), entry_reader.text("reason")};
    }
    return out;
  }

  const toml::table& table() const { return table_; }

 private:
  const std::string& file_;
  const toml::table& table_;
  std::string prefix_;
};

nlohmann::json to_json(const toml::node& node) {
  if (auto v = node.value_exact<int64_t>()) return *v;
  if (auto v = node.value_exact<double>()) return *v;
  if (auto v = node.value_exact<bool>()) return *v;
  if (auto v = node.value_exact<std::string>()) return *v;
  if (const toml::array* array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : *array) out.push_back(to_json(item));
    return out;
  }
  if (const toml::table* table = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : *table) out[std::string(key.str())] = to_json(value);
    return out;
  }
  return nullptr;
}

TaskCase read_case(const std::string& file, const toml::table& table, size_t index,
                   const Task& task) {
  FieldReader reader(file, table, "cases[" + std::to_string(index) + "].");
  reader.reject_unknown(kCaseKeys);
  TaskCase c;
  c.name = reader.text("name");
  c.small = reader.flag("small", false);
  const toml::node* params = reader.find("params", true);
  if (!params->is_table()) reader.fail(params, "params", "must be a table of shape symbols");
  c.params = to_json(*params);
  for (const auto& [key, value] : *params->as_table()) {
    if (value.is_number()) c.numeric_params[std::string(key.str())] = *value.value<double>();
  }
  c.dtypes = reader.dtypes("dtypes", false);
  for (const auto& dtype : c.dtypes) {
    if (std::find(task.dtypes.begin(), task.dtypes.end(), dtype) == task.dtypes.end()) {
      reader.fail(reader.find("dtypes", true), "dtypes",
                  "\"" + dtype + "\" is not among the task's dtypes");
    }
  }
  c.tolerance = reader.tolerances("tolerance", false, task.dtypes_of(c));
  for (const auto* field : {&task.flops, &task.bytes}) {
    Symbols symbols = c.numeric_params;
    symbols["elem"] = 4;
    try {
      evaluate_expression(*field, symbols);
    } catch (const std::invalid_argument& e) {
      reader.fail(params, field == &task.flops ? "flops" : "bytes", e.what());
    }
  }
  return c;
}

// The `[held_out]` table; an error names the line of the field it is about.
void read_task_held_out(const std::string& file, const toml::node& node, Task& task) {
  const toml::table* table = node.as_table();
  if (!table) FieldReader(file, toml::table{}, "").fail(&node, "held_out", "must be a table");
  std::vector<std::pair<toml::source_position, std::string>> listed;
  if (const toml::table* params = table->get_as<toml::table>("params")) {
    for (const auto& [key, value] : *params) listed.emplace_back(value.source().begin, std::string(key.str()));
  }
  std::sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first.line, a.first.column) < std::pair(b.first.line, b.first.column);
  });
  std::vector<std::string> order;
  for (const auto& [_, name] : listed) order.push_back(name);
  try {
    task.held_out = read_held_out(to_json(node), task, order);
  } catch (const HeldOutError& e) {
    // the deepest field the path names that the file has
    const toml::node* at = &node;
    std::string path;
    for (size_t start = 0; start < e.field.size();) {
      size_t dot = e.field.find('.', start);
      if (dot == std::string::npos) dot = e.field.size();
      path += (path.empty() ? "" : ".") + e.field.substr(start, dot - start);
      if (const toml::node* deeper = table->at_path(path).node()) at = deeper;
      start = dot + 1;
    }
    FieldReader(file, *table, e.field.empty() ? "" : "held_out.").fail(at, e.field.empty() ? "held_out" : e.field, e.what());
  }
}

}  // namespace

Task load_task(const std::filesystem::path& task_dir) {
  const std::string file = (task_dir / "task.toml").string();
  if (!std::filesystem::exists(file)) throw TaskFileError(file + ": missing task.toml");
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw TaskFileError(file + ":" + std::to_string(e.source().begin.line) +
                        ": invalid TOML: " + std::string(e.description()));
  }
  FieldReader reader(file, root, "");
  reader.reject_unknown(kTaskKeys);

  Task task;
  task.dir = task_dir;
  task.name = reader.text("name");
  if (task.name != task_dir.filename().string()) {
    reader.fail(reader.find("name", true), "name",
                "\"" + task.name + "\" differs from its folder \"" +
                    task_dir.filename().string() + "\"");
  }
  task.version = static_cast<int>(reader.integer("version", 1, 1'000'000));
  task.track = reader.text("track");
  if (task.track != "ops" && task.track != "real") {
    reader.fail(reader.find("track", true), "track",
                "must be \"ops\" or \"real\"" + did_you_mean(task.track, {"ops", "real"}));
  }
  task.category = reader.text("category");
  task.difficulty = static_cast<int>(reader.integer("difficulty", 1, 5));
  task.entry = reader.text("entry");
  task.signature = reader.text("signature");
  task.instruction = reader.text("instruction");
  task.dtypes = reader.dtypes("dtypes", true);
  task.inplace = reader.flag("inplace", false);
  if (reader.find("precision", false)) {
    task.precision = reader.text("precision", false);
    if (std::find(kPrecisions.begin(), kPrecisions.end(), task.precision) == kPrecisions.end()) {
      reader.fail(reader.find("precision", false), "precision",
                  "must be \"fp32\", \"tf32\" or \"any\"" +
                      did_you_mean(task.precision, kPrecisions));
    }
  }
  task.require_kernel = reader.flag("require_kernel", true);
  task.shared_inputs = reader.flag("shared_inputs", true);
  task.inputs_on_device = reader.flag("inputs_on_device", false);
  task.check_reference_defined = reader.flag("check_reference_defined", false);
  task.flops = reader.text("flops");
  task.bytes = reader.text("bytes");
  task.source = reader.text("source", false);
  task.notes = reader.text("notes", false);
  task.compute_rate = reader.text("compute_rate", false);
  task.adapter = reader.text("adapter", false);
  if (task.adapter.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos ||
      task.adapter == "common" || task.adapter == "vendor") {
    reader.fail(reader.find("adapter", false), "adapter",
                "\"" + task.adapter + "\" is not a peer package of keval_adapters (a lowercase name)");
  }
  if (!task.compute_rate.empty() &&
      std::find(kComputeRates.begin(), kComputeRates.end(), task.compute_rate) == kComputeRates.end()) {
    reader.fail(reader.find("compute_rate", false), "compute_rate",
                "unknown rate \"" + task.compute_rate + "\"" + did_you_mean(task.compute_rate, kComputeRates));
  }

  task.tolerance = reader.tolerances("tolerance", true, task.dtypes);
  for (const auto& dtype : task.dtypes) {
    if (!task.tolerance.count(dtype)) {
      reader.fail(reader.find("tolerance", true), "tolerance." + dtype, "missing (every dtype needs one)");
    }
  }

  const toml::node* cases_node = reader.find("cases", true);
  const toml::array* cases = cases_node->as_array();
  if (!cases || cases->empty()) reader.fail(cases_node, "cases", "must be [[cases]] tables");
  std::set<std::string> names;
  for (size_t i = 0; i < cases->size(); ++i) {
    const toml::node& node = (*cases)[i];
    if (!node.is_table()) reader.fail(&node, "cases", "must be [[cases]] tables");
    TaskCase c = read_case(file, *node.as_table(), i, task);
    if (!names.insert(c.name).second) {
      reader.fail(&node, "cases[" + std::to_string(i) + "].name", "duplicate \"" + c.name + "\"");
    }
    task.cases.push_back(std::move(c));
  }
  if (std::none_of(task.cases.begin(), task.cases.end(), [](const TaskCase& c) { return c.small; })) {
    reader.fail(cases_node, "cases", "no case has small = true (CPU mode would run nothing)");
  }
  if (const toml::node* held_out = reader.find("held_out", false)) read_task_held_out(file, *held_out, task);
  for (const char* script : {"reference.py", "golden.py"}) {
    if (!std::filesystem::exists(task_dir / script)) {
      throw TaskFileError((task_dir / script).string() + ": missing");
    }
  }
  return task;
}

}  // namespace keval
