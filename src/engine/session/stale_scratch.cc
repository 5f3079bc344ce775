#include "engine/session/stale_scratch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace keval {

namespace {

struct ProcessState {
  std::string program;  // comm: the program's file name, at most 15 characters
  char state = '?';     // 'Z': exited, not yet reaped
};

// From /proc/<pid>/stat: "pid (comm) state ...", where comm may itself hold ") ".
std::optional<ProcessState> read_process_state(const std::string& pid) {
  std::ifstream file("/proc/" + pid + "/stat");
  std::stringstream text;
  text << file.rdbuf();
  const std::string stat = text.str();
  const auto open = stat.find('(');
  const auto close = stat.rfind(')');
  if (!file || open == std::string::npos || close == std::string::npos || close < open ||
      close + 2 >= stat.size()) {
    return std::nullopt;
  }
  return ProcessState{stat.substr(open + 1, close - open - 1), stat[close + 2]};
}

// The pid a scratch folder's name starts with; none for a name of another shape.
std::optional<pid_t> owner_pid(const std::string& name) {
  const auto dash = name.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == name.size()) return std::nullopt;
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + dash, pid);
  if (error != std::errc() || end != name.data() + dash || pid <= 0) return std::nullopt;
  return pid;
}

}  // namespace

bool is_live_keval(pid_t pid) {
  static const std::optional<ProcessState> self = read_process_state("self");
  const std::optional<ProcessState> process = read_process_state(std::to_string(pid));
  if (!process || process->state == 'Z') return false;
  return process->program == "keval" || (self && process->program == self->program);
}

int remove_stale_scratch(const std::filesystem::path& base, const std::function<bool(pid_t)>& live) {
  // Without /proc every keval would read as gone: then nothing is known to be stale.
  if (!std::filesystem::exists("/proc/self/stat")) return 0;
  int removed = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
    const std::optional<pid_t> pid = owner_pid(entry.path().filename().string());
    struct stat info {};
    if (!pid || ::lstat(entry.path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid() ||
        live(*pid)) {
      continue;
    }
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
    if (!ignored) ++removed;
  }
  return removed;
}

}  // namespace keval
