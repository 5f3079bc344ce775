#include "common/replace_file.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace keval {

void replace_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path temp = path;
  temp += ".partial-" + std::to_string(::getpid());
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << text;
    file.flush();
    if (!file) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw std::runtime_error(path.string() + ": cannot be written");
    }
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(path.string() + ": cannot be replaced: " + error.message());
  }
}

}  // namespace keval
