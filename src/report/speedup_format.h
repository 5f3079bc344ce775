#pragma once
// How a speedup is written for people (the run's table, STATUS.md, keval compare): two
// decimals, or two significant digits below 0.1 (the CPU interpreter against eager PyTorch
// reads 0.0045x, which two decimals would show as 0.00x). The caller adds its "x" or "×".
#include <string>

namespace keval {

std::string format_speedup(double speedup);

}  // namespace keval
