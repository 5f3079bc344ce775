#include "submission/file_text.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace keval {

std::string read_file_text(const std::filesystem::path& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const char* why = errno != 0 ? std::strerror(errno) : "open failed";
    throw std::runtime_error(path.string() + ": cannot read file: " + why);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path.string() + ": cannot read file: read failed");
  return std::move(text).str();
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos;
}

}  // namespace keval
