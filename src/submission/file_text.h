#pragma once
// Whole-file reads whose failures name the path in one line.

#include <filesystem>
#include <string>

namespace keval {

// The bytes of a file. Throws std::runtime_error "<path>: cannot read file: <why>".
std::string read_file_text(const std::filesystem::path& path);

}  // namespace keval
