#pragma once
// UTF-8 validation: code and names end up in JSON (runner protocol, results),
// and nlohmann::json refuses to serialise invalid UTF-8.

#include <cstddef>
#include <optional>
#include <string_view>

namespace keval {

// Byte offset of the first byte that starts an invalid UTF-8 sequence
// (overlong forms and surrogates count as invalid), or nullopt when valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace keval
