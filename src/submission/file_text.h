#pragma once
// Whole-file reads whose failures name the path in one line.

#include <filesystem>
#include <string>
#include <string_view>

namespace keval {

// The bytes of a file. Throws std::runtime_error "<path>: cannot read file: <why>".
std::string read_file_text(const std::filesystem::path& path);

// True when the text holds only whitespace (or nothing).
bool is_blank(std::string_view text);

}  // namespace keval
