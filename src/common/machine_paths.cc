#include "common/machine_paths.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace keval {
namespace {

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+' || c == '@';
}

// Replaces `folder` where it stands as a whole path or a path's start.
std::string replace_folder(const std::string& text, const std::string& folder, const std::string& label) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = text.find(folder, from)) != std::string::npos;) {
    const size_t end = at + folder.size();
    const bool starts = at == 0 || !(path_char(text[at - 1]) || text[at - 1] == '/');
    if (!starts || (end < text.size() && path_char(text[end]))) {
      out.append(text, from, end - from);
      from = end;
      continue;
    }
    out.append(text, from, at - from);
    if (end < text.size() && text[end] == '/') {
      out += label == "." ? "" : label + "/";
      from = end + 1;
    } else {
      out += label;
      from = end;
    }
  }
  return out.append(text, from, std::string::npos);
}

}  // namespace

void MachinePaths::add(const std::filesystem::path& folder, const std::string& label) {
  std::error_code ignored;
  for (auto form : {std::filesystem::absolute(folder, ignored), std::filesystem::weakly_canonical(folder, ignored)}) {
    std::string text = form.lexically_normal().string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    if (text.size() <= 1) continue;  // never "/" itself
    if (std::none_of(folders_.begin(), folders_.end(), [&](const auto& f) { return f.first == text; })) {
      folders_.emplace_back(text, label);
    }
  }
  std::stable_sort(folders_.begin(), folders_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string MachinePaths::relative(std::string text) const {
  if (text.find('/') == std::string::npos) return text;
  for (const auto& [folder, label] : folders_) text = replace_folder(text, folder, label);
  static const std::regex python_dirs(R"((?:/[^\s"':/]+)+/((?:site|dist)-packages|python3\.\d+)/)");
  return std::regex_replace(text, python_dirs, "$1/");
}

}  // namespace keval
