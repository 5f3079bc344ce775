#pragma once
// Python source with parts blanked out (line structure kept), so that patterns match only
// what they should: code, or code and string contents, never comments.
#include <string>
#include <string_view>

namespace keval {

// The source with comments and string contents blanked. Unterminated strings run to the end.
std::string code_only(std::string_view code);

// The source with comments blanked and strings kept (a name spelled in a string still counts).
std::string without_comments(std::string_view code);

}  // namespace keval
