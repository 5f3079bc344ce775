#pragma once
// Held-out shapes: a task's `[held_out]` table says how its shape symbols may vary, and each run
// draws a few cases from it with the run's secret seed. No instruction names them, so a kernel
// tuned to the listed shapes fails; they are judged for correctness only, never timed.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct TaskCase;
struct Task;

struct HeldOutParam {
  enum class Kind { kRange, kOneOf, kDerived, kFixed };
  std::string name;
  Kind kind = Kind::kFixed;
  int64_t lo = 1, hi = 1;        // kRange: inclusive
  int64_t multiple_of = 1;       // kRange
  bool power_of_two = false;     // kRange
  std::vector<int64_t> one_of;   // kOneOf
  std::string expression;        // kDerived: over the other params (suite/expression.h)
  nlohmann::json value;          // kFixed: passed to make_inputs as it is (a flag, a constant)
};

struct HeldOut {
  std::vector<HeldOutParam> params;  // drawn and fixed first, derived in dependency order last
  std::vector<std::string> names;    // the params in the file's order, which case names follow
  std::string size;                  // an expression over the params; "" = no bound
  double max_size = 0;               // a drawn shape's `size` is at most this
  std::vector<std::string> dtypes;   // each held-out case runs in one of these; empty: the task's

  bool empty() const { return params.empty(); }
  nlohmann::json to_json() const;  // for the evaluation key
};

// A held-out table that cannot be drawn from. `field` is the path under `held_out` ("params.rows",
// "max_size"), so the loader can name the line.
class HeldOutError : public std::invalid_argument {
 public:
  HeldOutError(std::string field, const std::string& what)
      : std::invalid_argument(what), field(std::move(field)) {}
  std::string field;
};

// Reads a `[held_out]` table (as JSON) for `task`, whose dtypes and cases are already read:
// every symbol all its cases set must be drawn, derived or fixed, and the smallest shape must
// fit `max_size`. `param_order` is the order the file lists the params in (the drawn cases'
// names follow it). Throws HeldOutError.
HeldOut read_held_out(const nlohmann::json& table, const Task& task,
                      const std::vector<std::string>& param_order = {});

// `count` held-out cases of `task` drawn with `seed`: the same for the same seed, small (fit for
// the CPU interpreter), one dtype each. Sizes lean to odd and prime values. Each is named after
// its drawn symbols ("held_out_1 rows=37 cols=4099"), so a failure is reproducible from the
// stored record. None when the task has no `[held_out]` table.
std::vector<TaskCase> draw_held_out(const Task& task, uint64_t seed, int count);

inline constexpr const char* kHeldOutPrefix = "held_out_";

}  // namespace keval
