#pragma once
// The --out folder a command writes into, made and checked before anything is written, so a
// path that names a file or lies under a read-only folder ends the command with one line
// ("--out PATH: why") instead of a raw filesystem error halfway through.
#include <filesystem>
#include <stdexcept>

namespace keval {

class OutFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates `out` (and its parents) when missing; throws OutFolderError when it cannot be made
// or written in.
void make_out_folder(const std::filesystem::path& out);

}  // namespace keval
