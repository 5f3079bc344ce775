// The suite's name in dataset records (commands.h).
#include "cli/commands.h"
#include "suite/adapters/peer_source.h"

namespace keval {

std::string suite_label(const std::string& suite_arg) {
  if (auto peer = parse_peer_spec(suite_arg)) return peer->kind;
  auto path = std::filesystem::path(suite_arg).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().string();
}

}  // namespace keval
