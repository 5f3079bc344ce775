#include "common/cache_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace keval {
namespace {

bool owned_by(const std::filesystem::path& path, unsigned uid) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && info.st_uid == uid;
}

}  // namespace

std::filesystem::path default_cache_root(unsigned uid, const char* xdg_cache_home, const char* home,
                                         bool home_is_own) {
  if (uid == 0) return "/var/tmp/keval-cache";
  if (home_is_own && xdg_cache_home && *xdg_cache_home) return std::filesystem::path(xdg_cache_home) / "keval";
  if (home_is_own && home && *home) return std::filesystem::path(home) / ".cache" / "keval";
  return "/var/tmp/keval-cache-uid-" + std::to_string(uid);
}

std::filesystem::path keval_cache_root() {
  const unsigned uid = ::geteuid();
  std::filesystem::path root;
  if (const char* chosen = std::getenv("KEVAL_CACHE_DIR"); chosen && *chosen) {
    root = chosen;
  } else {
    const char* home = std::getenv("HOME");
    root = default_cache_root(uid, std::getenv("XDG_CACHE_HOME"), home, home && *home && owned_by(home, uid));
  }
  std::error_code error;
  std::filesystem::create_directories(root, error);
  if (error) {
    throw std::runtime_error(root.string() + ": cannot make the cache folder: " + error.message() +
                             " (set KEVAL_CACHE_DIR to a folder of yours)");
  }
  struct stat info {};
  if (::stat(root.c_str(), &info) == 0 && info.st_uid != uid) {
    throw std::runtime_error(root.string() + ": the cache folder belongs to uid " + std::to_string(info.st_uid) +
                             ", not to this user (uid " + std::to_string(uid) +
                             "); set KEVAL_CACHE_DIR to a folder of yours");
  }
  return root;
}

}  // namespace keval
