#pragma once
// Where keval's Python half is: the interpreter that runs it and the runner package's folder.
#include <filesystem>
#include <string>

namespace keval {

// The interpreter: --python, else $KEVAL_PYTHON, else the one `make` set up (recorded in
// keval.python beside the binary, or share/keval/python of an install), else python3.
std::string choose_python(const std::string& flag);

// The Python recorded beside the binary `exe` (or in its install's share/keval/python), if it exists.
std::string recorded_python(const std::filesystem::path& exe);

// The folder holding keval_runner/: $KEVAL_RUNNER_DIR, beside the binary, in its install's
// share/keval, or in the source tree it was built from. Throws std::runtime_error when none has it.
std::filesystem::path find_runner_dir();

}  // namespace keval
