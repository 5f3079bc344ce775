#pragma once
// UTF-8 validation: code and names end up in JSON (runner protocol, results),
// and nlohmann::json refuses to serialise invalid UTF-8.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace keval {

// Byte offset of the first byte that starts an invalid UTF-8 sequence
// (overlong forms and surrogates count as invalid), or nullopt when valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// The text with each byte that starts an invalid sequence replaced by U+FFFD: what a
// submission's process wrote (its stderr) can then go into JSON.
std::string with_invalid_utf8_replaced(std::string_view text);

}  // namespace keval
