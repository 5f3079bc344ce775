#pragma once
// How a verdict's reasons name where a fact was seen and the figures in it.
#include <optional>
#include <string>

#include "facts/verdict_messages.h"

namespace keval {

// "case odd float32 seed 7: ", or "" when the fact names no case.
std::string where(const Place& at);

// Three significant digits; "n/a" for none.
std::string number(std::optional<double> value);

}  // namespace keval
