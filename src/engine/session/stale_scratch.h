#pragma once
// Scratch folders under /var/tmp/keval-work are named <pid>-<name> after the keval that made
// them. A run removes its own at its end, but a keval killed outright (SIGKILL, the OOM killer)
// cannot: a later run removes those whose keval is gone, and never a live run's.
#include <sys/types.h>

#include <filesystem>
#include <functional>

namespace keval {

// Whether `pid` is a running keval: its /proc/<pid>/stat names this process's own program or
// "keval" and it has not exited (a zombie has). A pid reused by another program reads as gone.
bool is_live_keval(pid_t pid);

// Removes each folder directly under `base` named <pid>-<name> whose pid is not `live`, when it
// is a folder (not a link to one) owned by this process's uid; anything else stays. What cannot
// be removed (a file another uid made there) stays for a later run. Returns how many went.
int remove_stale_scratch(const std::filesystem::path& base,
                         const std::function<bool(pid_t)>& live = is_live_keval);

}  // namespace keval
