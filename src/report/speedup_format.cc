#include "report/speedup_format.h"

#include <cstdio>

namespace keval {

std::string format_speedup(double speedup) {
  char text[32];
  std::snprintf(text, sizeof text, speedup < 0.1 ? "%.2g" : "%.2f", speedup);
  return text;
}

}  // namespace keval
