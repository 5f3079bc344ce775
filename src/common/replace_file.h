#pragma once
// A file that readers and a later run must find whole: written beside itself, then renamed over
// the old one, so a kill at any moment leaves the old text or the new, never a part of either
// (results.jsonl and summary.json, which a resumed run reads back).
#include <filesystem>
#include <string>

namespace keval {

// `path` holds `text` afterwards; throws std::runtime_error naming the file when it cannot be
// written (the old file, if any, is then left as it was).
void replace_file(const std::filesystem::path& path, const std::string& text);

}  // namespace keval
