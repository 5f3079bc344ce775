#include "judge/reason_text.h"

#include <sstream>

namespace keval {

std::string where(const Place& at) {
  const std::string text = at.text();
  return text.empty() ? text : text + ": ";
}

std::string number(std::optional<double> value) {
  if (!value) return "n/a";
  std::ostringstream out;
  out.precision(3);
  out << *value;
  return out.str();
}

}  // namespace keval
