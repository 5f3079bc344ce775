#include "submission/utf8.h"

namespace keval {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    unsigned char min_second = 0x80;
    unsigned char max_second = 0xbf;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      extra = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      extra = 2;
      if (lead == 0xe0) min_second = 0xa0;  // overlong
      if (lead == 0xed) max_second = 0x9f;  // UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      extra = 3;
      if (lead == 0xf0) min_second = 0x90;  // overlong
      if (lead == 0xf4) max_second = 0x8f;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + extra >= text.size()) return i;  // truncated sequence
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      const unsigned char low = k == 1 ? min_second : 0x80;
      const unsigned char high = k == 1 ? max_second : 0xbf;
      if (byte < low || byte > high) return i;
    }
    i += extra + 1;
  }
  return std::nullopt;
}

std::string with_invalid_utf8_replaced(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::optional<std::size_t> bad = first_invalid_utf8(text);
    if (!bad) {
      out.append(text);
      break;
    }
    out.append(text.substr(0, *bad));
    out.append("\xEF\xBF\xBD");  // U+FFFD
    text.remove_prefix(*bad + 1);
  }
  return out;
}

}  // namespace keval
