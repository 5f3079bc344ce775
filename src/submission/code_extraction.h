#pragma once
// Getting Python source out of what a model wrote: Markdown-fenced blocks or
// the bare text.

#include <string>
#include <string_view>
#include <vector>

namespace keval {

// Strips a leading UTF-8 BOM and turns \r\n into \n.
std::string normalise_text(std::string_view text);

struct FencedBlock {
  std::string info;  // first word of the info string, lowercased ("python", "" ...)
  std::string body;  // lines between the fences, '\n'-terminated
};

// The ``` fenced blocks of normalised text, in order. A fence may be indented
// (models nest code in lists); that indentation is removed from its body lines.
// A block left open at the end (truncated output) runs to the end.
std::vector<FencedBlock> fenced_blocks(std::string_view text);

// The code to evaluate. Without fences: the normalised text as is. One block:
// its body. Several: the last python/py/unlabelled block with a top-level
// `def`; failing that, the longest block.
std::string extract_code(std::string_view text);

}  // namespace keval
