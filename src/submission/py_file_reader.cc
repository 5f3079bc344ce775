#include "submission/py_file_reader.h"

#include "submission/code_extraction.h"
#include "submission/file_text.h"
#include "submission/utf8.h"

namespace keval {
namespace {

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos;
}

}  // namespace

std::string task_from_file_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.substr(0, name.find('.'));
}

Submission read_py_file(const std::filesystem::path& path) {
  const std::string raw = read_file_text(path);
  const std::string origin = path.string();
  std::string task = task_from_file_name(path);
  std::string id = path.stem().string();
  if (task.empty()) {
    return bad_submission("", std::move(id), origin,
                          origin + ": cannot tell the task from the file name (want TASK.py)",
                          raw);
  }
  if (auto bad_byte = first_invalid_utf8(raw)) {
    return bad_submission(std::move(task), std::move(id), origin,
                          origin + ": not valid UTF-8 (byte " + std::to_string(*bad_byte) + ")",
                          raw);
  }
  std::string code = normalise_text(raw);
  if (is_blank(code)) {
    return bad_submission(std::move(task), std::move(id), origin, origin + ": empty file", raw);
  }
  return usable_submission(std::move(task), std::move(code), std::move(id), origin);
}

}  // namespace keval
