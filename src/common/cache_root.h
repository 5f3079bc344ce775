#pragma once
// Where keval keeps what it caches across runs (compile caches, GPU ceilings, adapted peer
// suites): one folder per user, so a user never reads or writes another's. Root's is
// /var/tmp/keval-cache (its jobs run as leased uids, which must reach it, so not under /root);
// another user's is $XDG_CACHE_HOME/keval or ~/.cache/keval when that home is the user's own,
// else /var/tmp/keval-cache-uid-N. KEVAL_CACHE_DIR overrides all of them.
#include <filesystem>

namespace keval {

// The folder, made when missing. Throws std::runtime_error (one line) when it belongs to
// another user: a cache someone else can write could hand this user's jobs compiled code.
std::filesystem::path keval_cache_root();

// The default for a user (no KEVAL_CACHE_DIR), without touching the disk; for tests.
std::filesystem::path default_cache_root(unsigned uid, const char* xdg_cache_home, const char* home,
                                         bool home_is_own);

}  // namespace keval
