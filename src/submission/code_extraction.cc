#include "submission/code_extraction.h"

#include <algorithm>
#include <cctype>

namespace keval {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::size_t kMinFence = 3;

std::size_t leading_spaces(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

std::string_view trim(std::string_view s) {
  const std::size_t begin = leading_spaces(s);
  std::size_t end = s.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

std::size_t backtick_run(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] == '`') ++n;
  return n;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string first_word_lowercase(std::string_view info) {
  std::string word;
  for (char c : info) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '{') break;
    word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return word;
}

// Removes up to `indent` leading blanks, as Markdown does for an indented fence.
std::string_view dedent(std::string_view line, std::size_t indent) {
  return line.substr(std::min(indent, leading_spaces(line)));
}

bool is_python_label(const std::string& info) {
  return info.empty() || info == "python" || info == "py" || info == "python3";
}

bool has_top_level_def(std::string_view body) {
  for (std::string_view line : split_lines(body)) {
    if (line.starts_with("def ") || line.starts_with("async def ")) return true;
  }
  return false;
}

}  // namespace

std::string normalise_text(std::string_view text) {
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

std::vector<FencedBlock> fenced_blocks(std::string_view text) {
  std::vector<FencedBlock> blocks;
  bool inside = false;
  std::size_t fence_length = 0;
  std::size_t fence_indent = 0;
  for (std::string_view line : split_lines(text)) {
    const std::size_t indent = leading_spaces(line);
    const std::string_view rest = line.substr(indent);
    const std::size_t ticks = backtick_run(rest);
    if (!inside && ticks >= kMinFence) {
      inside = true;
      fence_length = ticks;
      fence_indent = indent;
      blocks.push_back({first_word_lowercase(trim(rest.substr(ticks))), ""});
    } else if (inside && ticks >= fence_length && trim(rest.substr(ticks)).empty()) {
      inside = false;
    } else if (inside) {
      blocks.back().body.append(dedent(line, fence_indent));
      blocks.back().body.push_back('\n');
    }
  }
  return blocks;
}

std::string extract_code(std::string_view text) {
  std::string normalised = normalise_text(text);
  std::vector<FencedBlock> blocks = fenced_blocks(normalised);
  if (blocks.empty()) return normalised;
  if (blocks.size() == 1) return std::move(blocks.front().body);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    if (is_python_label(it->info) && has_top_level_def(it->body)) return std::move(it->body);
  }
  auto longest = std::max_element(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) {
    return a.body.size() < b.body.size();
  });
  return std::move(longest->body);
}

}  // namespace keval
