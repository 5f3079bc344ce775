#include "engine/settings/sandbox_settings.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace keval {
namespace {

constexpr int kUidBase = 61000;
constexpr long long kGiB = 1LL << 30;

nlohmann::json optional_json(const std::optional<long long>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

bool readable_by_others(const std::string& path) {
  std::error_code error;
  std::filesystem::path current = std::filesystem::weakly_canonical(path, error);
  if (error) return false;
  for (; !current.empty(); current = current.parent_path()) {
    struct stat info;
    if (::stat(current.c_str(), &info) != 0) return false;
    mode_t needed = S_ISDIR(info.st_mode) ? S_IXOTH : S_IROTH;
    if ((info.st_mode & needed) == 0) return false;
    if (current == current.root_path()) break;
  }
  return true;
}

SandboxSettings decide_sandbox(bool enabled, const std::string& device, int timeout_s,
                               const std::vector<std::string>& python_dirs) {
  SandboxSettings s;
  s.enabled = enabled;
  if (!enabled) {
    s.warnings.push_back("sandbox disabled by --no-sandbox");
    return s;
  }
  s.cpu_seconds = timeout_s + 30;
  s.file_size_bytes = device == "cuda" ? 16 * kGiB : 2 * kGiB;
  if (device != "cuda") s.address_space_bytes = 32 * kGiB;
  if (::geteuid() != 0) {
    s.warnings.push_back("not root: jobs run as the invoking user, so files that user can write are not protected");
    return s;
  }
  for (const auto& dir : python_dirs) {
    if (!readable_by_others(dir)) {
      s.warnings.push_back("jobs run as root: the Python installation (" + dir +
                           ") is not readable by other users, so no unprivileged uid can use it");
      return s;
    }
  }
  s.uid_base = kUidBase;
  return s;
}

std::vector<std::string> python_install_dirs(const std::string& python) {
  std::string command = "'" + python + "' -c 'import sys; print(sys.prefix); print(sys.base_prefix)' 2>/dev/null";
  std::vector<std::string> dirs;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, pipe)) {
      std::string dir(line);
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
      if (!dir.empty()) dirs.push_back(dir);
    }
    ::pclose(pipe);
  }
  return dirs;
}

void apply_probe_capabilities(SandboxSettings& settings, const nlohmann::json& probe,
                              const std::string& device) {
  if (!settings.enabled) return;
  const nlohmann::json caps = probe.value("sandbox_capabilities", nlohmann::json::object());
  if (!caps.value("netns", false)) {
    settings.isolate_network = false;
    settings.warnings.push_back("network not isolated: this machine refused a new network namespace");
  }
  if (device == "cuda" && settings.uid_base && caps.contains("cuda_as_uid") &&
      caps["cuda_as_uid"].is_boolean() && !caps["cuda_as_uid"].get<bool>()) {
    settings.uid_base.reset();
    settings.warnings.push_back("jobs run as root: CUDA was not usable under another uid here");
  }
}

std::string cache_dir_of(const std::string& root, const std::string& kind, std::optional<int> uid) {
  return root + "/" + kind + "/" + (uid ? "uid-" + std::to_string(*uid) : "user-" + std::to_string(::geteuid()));
}

std::optional<int> SandboxSettings::uid_of_slot(int slot) const {
  if (!enabled || !uid_base) return std::nullopt;
  return slot < static_cast<int>(slot_uids.size()) ? slot_uids[slot] : *uid_base + slot;
}

nlohmann::json SandboxSettings::for_slot(int slot, const std::string& cache_root) const {
  if (!enabled) return {{"enabled", false}};
  std::optional<int> slot_uid = uid_of_slot(slot);
  nlohmann::json uid = slot_uid ? nlohmann::json(*slot_uid) : nlohmann::json(nullptr);
  return {{"enabled", true},
          {"uid", uid},
          {"gid", uid},
          {"isolate_network", isolate_network},
          {"rlimits", {{"cpu_s", optional_json(cpu_seconds)},
                       {"fsize_bytes", optional_json(file_size_bytes)},
                       {"nofile", optional_json(open_files)},
                       {"nproc", optional_json(processes)},
                       {"as_bytes", optional_json(address_space_bytes)}}},
          {"stdout_cap_bytes", stdout_cap_bytes},
          // Autotuning results cached too (keyed by Triton, target, kernel source, key and
          // configs): the timing job reuses the candidate job's instead of benchmarking every
          // config again, and a slot's later submissions reuse the golden's.
          {"env", {{"TRITON_CACHE_DIR", cache_dir_of(cache_root, "triton", slot_uid)},
                   {"TORCHINDUCTOR_CACHE_DIR", cache_dir_of(cache_root, "inductor", slot_uid)},
                   {"TRITON_CACHE_AUTOTUNING", "1"}}}};
}

nlohmann::json SandboxSettings::describe(const MachinePaths& paths) const {
  nlohmann::json d = for_slot(0, "<cache>");
  d["env"]["TRITON_CACHE_DIR"] = "<cache>/triton/uid-N (one per uid)";
  d["env"]["TORCHINDUCTOR_CACHE_DIR"] = "<cache>/inductor/uid-N (one per uid)";
  d["uid"] = uid_base ? nlohmann::json(slot_uids) : nlohmann::json(nullptr);
  d.erase("gid");
  d["warnings"] = nlohmann::json::array();
  for (const auto& warning : warnings) d["warnings"].push_back(paths.relative(warning));
  return d;
}

}  // namespace keval
