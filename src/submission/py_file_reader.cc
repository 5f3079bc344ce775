#include "submission/py_file_reader.h"

#include <algorithm>

#include "submission/code_extraction.h"
#include "submission/file_text.h"
#include "submission/utf8.h"

namespace keval {
namespace {

}  // namespace

std::string task_from_header(std::string_view code) {
  size_t start = 0;
  while (start < code.size()) {
    size_t end = code.find('\n', start);
    if (end == std::string_view::npos) end = code.size();
    std::string_view line = code.substr(start, end - start);
    start = end + 1;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    if (line[first] != '#') break;  // the header ends at the first line of code
    std::string_view comment = line.substr(first + 1);
    comment.remove_prefix(std::min(comment.size(), comment.find_first_not_of(" \t")));
    if (!comment.starts_with("task:")) continue;
    std::string_view name = comment.substr(5);
    const size_t begin = name.find_first_not_of(" \t");
    if (begin == std::string_view::npos) return "";
    name = name.substr(begin);
    return std::string(name.substr(0, name.find_first_of(" \t\r")));
  }
  return "";
}

std::string task_from_file_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.substr(0, name.find('.'));
}

Submission read_py_file(const std::filesystem::path& path) {
  const std::string raw = read_file_text(path);
  const std::string origin = path.string();
  std::string task = task_from_file_name(path);
  std::string id = path.stem().string();
  if (task.empty() && task_from_header(raw).empty()) {
    return bad_submission("", std::move(id), origin,
                          origin + ": cannot tell the task: no \"# task: NAME\" line and no task in the file name (want TASK.py)",
                          raw);
  }
  if (auto bad_byte = first_invalid_utf8(raw)) {
    return bad_submission(std::move(task), std::move(id), origin,
                          origin + ": not valid UTF-8 (byte " + std::to_string(*bad_byte) + ")",
                          raw);
  }
  std::string code = normalise_text(raw);
  if (std::string named = task_from_header(code); !named.empty()) task = std::move(named);
  if (is_blank(code)) {
    return bad_submission(std::move(task), std::move(id), origin, origin + ": empty file", raw);
  }
  return usable_submission(std::move(task), std::move(code), std::move(id), origin);
}

}  // namespace keval
