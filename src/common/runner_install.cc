#include "common/runner_install.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace keval {

std::string recorded_python(const std::filesystem::path& exe) {
  for (const auto& file : {exe.parent_path() / "keval.python",
                           exe.parent_path().parent_path() / "share" / "keval" / "python"}) {
    std::ifstream in(file);
    std::string python;
    if (in && std::getline(in, python) && !python.empty() && std::filesystem::exists(python)) return python;
  }
  return "";
}

std::string choose_python(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("KEVAL_PYTHON"); env && *env) return env;
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    if (std::string python = recorded_python(exe); !python.empty()) return python;
  }
  return "python3";
}

std::filesystem::path find_runner_dir() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("KEVAL_RUNNER_DIR")) candidates.emplace_back(env);
  std::error_code error;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(exe.parent_path().parent_path() / "runner");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "keval" / "runner");
  }
  candidates.push_back(std::filesystem::path(KEVAL_SOURCE_DIR) / "runner");
  for (const auto& dir : candidates) {
    if (std::filesystem::exists(dir / "keval_runner" / "__main__.py")) return dir;
  }
  throw std::runtime_error("cannot find the keval_runner package; set KEVAL_RUNNER_DIR");
}

}  // namespace keval
