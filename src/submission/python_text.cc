#include "submission/python_text.h"

namespace keval {
namespace {

// Blanks comments, and string contents unless `keep_strings`.
std::string blank(std::string_view code, bool keep_strings) {
  std::string out(code);
  size_t i = 0;
  while (i < out.size()) {
    char c = out[i];
    if (c == '#') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    const bool triple = out.compare(i, 3, std::string(3, c)) == 0;
    const std::string quote = triple ? std::string(3, c) : std::string(1, c);
    i += quote.size();
    while (i < out.size()) {
      if (out[i] == '\\' && i + 1 < out.size()) {
        if (!keep_strings) {
          out[i] = ' ';
          if (out[i + 1] != '\n') out[i + 1] = ' ';
        }
        i += 2;
        continue;
      }
      if (out.compare(i, quote.size(), quote) == 0) {
        i += quote.size();
        break;
      }
      if (out[i] == '\n' && !triple) break;  // an unterminated one-line string
      if (out[i] != '\n' && !keep_strings) out[i] = ' ';
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string code_only(std::string_view code) { return blank(code, false); }

std::string without_comments(std::string_view code) { return blank(code, true); }

}  // namespace keval
