// --python for everything a command starts, the peer adapters included (commands.h).
#include <cstdlib>

#include "cli/commands.h"

namespace keval {

void use_python(const std::string& python) {
  if (!python.empty()) ::setenv("KEVAL_PYTHON", python.c_str(), 1);
}

}  // namespace keval
