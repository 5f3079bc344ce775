#pragma once
// Content hashes: submissions are deduplicated and resumed by what they contain.

#include <string>
#include <string_view>

namespace keval {

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace keval
