#include "common/out_folder.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace keval {

void make_out_folder(const std::filesystem::path& out) {
  const std::string label = "--out " + out.string() + ": ";
  std::error_code error;
  if (std::filesystem::exists(out, error) && !std::filesystem::is_directory(out, error)) {
    throw OutFolderError(label + "is a file, not a folder");
  }
  std::filesystem::create_directories(out, error);
  if (error) {
    // the first ancestor that exists is where creating failed (a file, or read-only)
    std::filesystem::path blocker = std::filesystem::absolute(out).parent_path();
    std::error_code ignored;
    while (!blocker.empty() && !std::filesystem::exists(blocker, ignored) && blocker != blocker.root_path()) {
      blocker = blocker.parent_path();
    }
    if (std::filesystem::exists(blocker, ignored) && !std::filesystem::is_directory(blocker, ignored)) {
      throw OutFolderError(label + "cannot be made: " + blocker.string() + " is a file");
    }
    throw OutFolderError(label + "cannot be made in " + blocker.string() + ": " + error.message());
  }
  if (::access(out.c_str(), W_OK | X_OK) != 0) {
    throw OutFolderError(label + "cannot be written: " + std::strerror(errno));
  }
}

}  // namespace keval
