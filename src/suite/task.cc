#include "suite/task.h"

namespace keval {

int dtype_size(const std::string& dtype) {
  static const std::map<std::string, int> kSizes = {
      {"float64", 8}, {"float32", 4}, {"float16", 2}, {"bfloat16", 2},
      {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"int8", 1}, {"int32", 4}, {"int64", 8}};
  auto found = kSizes.find(dtype);
  return found == kSizes.end() ? 0 : found->second;
}

static Symbols case_symbols(const TaskCase& c, const std::string& dtype) {
  Symbols symbols = c.numeric_params;
  symbols["elem"] = dtype_size(dtype);
  return symbols;
}

double case_flops(const Task& task, const TaskCase& c, const std::string& dtype) {
  return evaluate_expression(task.flops, case_symbols(c, dtype));
}

double case_bytes(const Task& task, const TaskCase& c, const std::string& dtype) {
  return evaluate_expression(task.bytes, case_symbols(c, dtype));
}

}  // namespace keval
