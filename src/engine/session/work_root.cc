#include "engine/session/work_root.h"

#include <unistd.h>

#include <random>
#include <string>

#include "engine/session/stale_scratch.h"

namespace keval {

namespace {

const std::filesystem::path kScratchBase = "/var/tmp/keval-work";

// /var/tmp/keval-work/<pid>-<name>, created, every folder below /var/tmp open to others.
std::filesystem::path traversable_scratch(const std::string& name) {
  remove_stale_scratch(kScratchBase);  // what killed kevals left
  const auto folder = kScratchBase / (std::to_string(::getpid()) + "-" + name);
  std::filesystem::create_directories(folder);
  for (auto dir = folder; dir != dir.root_path(); dir = dir.parent_path()) {
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                          std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                          std::filesystem::perms::others_exec);
    if (dir.parent_path() == "/var/tmp") break;
  }
  return folder;
}

}  // namespace

std::filesystem::path job_work_root(const std::filesystem::path& out, SandboxSettings& sandbox) {
  std::filesystem::path work_root = out / "work";
  if (sandbox.enabled && sandbox.uid_base && !readable_by_others(work_root.string())) {
    work_root = traversable_scratch(std::to_string(std::random_device{}()));
    // recorded with the run: says where without naming OUT or this run's own folder, which the
    // run removes at its end (its reasons call it work/, as they would OUT/work)
    sandbox.warnings.push_back("OUT is not reachable by other users: job folders are under " + kScratchBase.string() +
                               " (reasons name them work/)");
  }
  return work_root;
}

std::filesystem::path lasting_work_folder(const std::filesystem::path& out, const std::string& name) {
  const std::filesystem::path work = out / "work";
  std::filesystem::create_directories(work);
  if (readable_by_others(work.string())) {
    std::filesystem::create_directories(work / name);
    return std::filesystem::absolute(work / name);
  }
  return traversable_scratch(name);
}

void remove_fallback_work_root(const std::filesystem::path& work_root, const std::filesystem::path& out) {
  if (work_root != out / "work") {
    std::error_code ignored;
    std::filesystem::remove_all(work_root, ignored);
  }
}

}  // namespace keval
