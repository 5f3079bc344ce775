#include "submission/jsonl_reader.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/near_name.h"
#include "submission/code_extraction.h"
#include "submission/file_text.h"

namespace keval {
namespace {

// Keeps the key order of the line, so "has: ..." lists keys as written.
using Json = nlohmann::ordered_json;

const std::vector<std::string> kKnownKeys = {"task", "code", "id", "predict", "file", "generation"};

// nlohmann's message without its "[json.exception...]" tag, on one printable
// ASCII line (it may quote raw bytes of the line, which need not be UTF-8).
std::string parse_message(const std::exception& error) {
  std::string message = error.what();
  if (auto tag_end = message.find("] "); message.starts_with("[") && tag_end != std::string::npos) {
    message.erase(0, tag_end + 2);
  }
  const std::string kFirstLine = "parse error at line 1, column ";
  if (message.starts_with(kFirstLine)) message = "column " + message.substr(kFirstLine.size());
  for (char& c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7e) c = '?';
  }
  return message;
}

std::string type_problem(const std::string& field, const Json& value, const char* wanted) {
  return "field \"" + field + "\" must be " + wanted + ", got " + value.type_name();
}

// " (has: a, b; did you mean \"x\"?)": what the line holds, and the unknown key
// that looks like a misspelling of one of `wanted`.
std::string key_hint(const Json& object, const std::vector<std::string>& wanted) {
  if (object.empty()) return " (the object has no fields)";
  std::string keys;
  std::string suggestion;
  for (const auto& item : object.items()) {
    if (!keys.empty()) keys += ", ";
    keys += item.key();
    const bool known = std::find(kKnownKeys.begin(), kKnownKeys.end(), item.key()) !=
                       kKnownKeys.end();
    if (!known && suggestion.empty()) suggestion = nearest_name(item.key(), wanted);
  }
  std::string hint = " (has: " + keys;
  if (!suggestion.empty()) hint += "; did you mean \"" + suggestion + "\"?";
  return hint + ")";
}

// The task name of a KernelBenchX "file": the stem of its last path component.
std::string task_from_task_file(std::string file) {
  std::replace(file.begin(), file.end(), '\\', '/');
  return std::filesystem::path(file).stem().string();
}

struct Fields {
  std::optional<std::string> task;  // nullopt: neither "task" nor "file"
  std::string id;
  std::string task_problem;
  std::string id_problem;
};

Fields read_task_and_id(const Json& object) {
  Fields fields;
  if (auto it = object.find("task"); it != object.end()) {
    if (it->is_string()) fields.task = it->get<std::string>();
    else fields.task_problem = type_problem("task", *it, "a string");
  } else if (auto file = object.find("file"); file != object.end()) {
    if (file->is_string()) fields.task = task_from_task_file(file->get<std::string>());
    else fields.task_problem = type_problem("file", *file, "a string");
  }
  if (fields.task && fields.task->empty()) fields.task_problem = "field \"task\" is empty";
  if (auto it = object.find("id"); it != object.end() && !it->is_null()) {
    if (it->is_string()) fields.id = it->get<std::string>();
    else if (it->is_number()) fields.id = it->dump();
    else fields.id_problem = type_problem("id", *it, "a string or number");
  }
  return fields;
}

std::string missing_task_problem(const Json& object) {
  const bool model_output = object.contains("predict") && !object.contains("code");
  const std::string what = model_output ? "no task: give \"task\" or \"file\""
                                        : "missing field \"task\"";
  return what + key_hint(object, {"task", "file"});
}

Submission read_fields(const Json& object, std::string_view line, const std::string& origin) {
  const Fields fields = read_task_and_id(object);
  auto fail = [&](const std::string& what) {
    return bad_submission(fields.task.value_or(""), fields.id, origin, origin + ": " + what, line);
  };

  // Native "code" wins over a model's raw "predict" text.
  const char* code_key = object.contains("code") ? "code" : "predict";
  auto code_it = object.find(code_key);
  if (code_it == object.end()) return fail("missing field \"code\"" + key_hint(object, {"code"}));
  if (!code_it->is_string()) return fail(type_problem(code_key, *code_it, "a string"));
  if (!fields.task_problem.empty()) return fail(fields.task_problem);
  if (!fields.task) return fail(missing_task_problem(object));
  if (!fields.id_problem.empty()) return fail(fields.id_problem);

  const auto& text = code_it->get_ref<const std::string&>();
  std::string code = extract_code(text);
  if (is_blank(code)) {
    return fail(is_blank(text) ? "field \"" + std::string(code_key) + "\" is empty"
                               : "field \"" + std::string(code_key) +
                                     "\" has no code in its fenced blocks");
  }
  return usable_submission(*fields.task, std::move(code), fields.id, origin);
}

}  // namespace

Submission parse_submission_line(std::string_view line, const std::string& origin) {
  Json object;
  try {
    object = Json::parse(line);
  } catch (const Json::exception& error) {
    return bad_submission("", "", origin, origin + ": invalid JSON: " + parse_message(error), line);
  }
  if (!object.is_object()) {
    return bad_submission("", "", origin,
                          origin + ": expected a JSON object, got " + object.type_name(), line);
  }
  Submission submission = read_fields(object, line, origin);
  // A generated sample keeps its record whatever became of it: a reply without code still counts
  // as one of the model's K samples.
  if (auto it = object.find("generation"); it != object.end() && !it->is_null()) {
    if (!it->is_object()) {
      return bad_submission(submission.task, submission.id, origin,
                            origin + ": " + type_problem("generation", *it, "an object"), line);
    }
    submission.generation = nlohmann::json::parse(it->dump());
  }
  return submission;
}

std::vector<Submission> read_jsonl_file(const std::filesystem::path& path) {
  const std::string raw = read_file_text(path);
  std::string_view text = raw;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<Submission> submissions;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (is_blank(line)) continue;
    submissions.push_back(
        parse_submission_line(line, path.string() + ":" + std::to_string(line_number)));
  }
  if (submissions.empty()) throw std::runtime_error(path.string() + ": empty submissions file");
  return submissions;
}

}  // namespace keval
