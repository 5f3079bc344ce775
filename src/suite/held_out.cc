#include "suite/held_out.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/near_name.h"
#include "suite/task.h"

namespace keval {
namespace {

using nlohmann::json;

const std::vector<std::string> kTableKeys = {"params", "size", "max_size", "dtypes"};
const std::vector<std::string> kParamKeys = {"range", "multiple_of", "power_of_two", "one_of", "expr"};
constexpr int64_t kLargest = (int64_t{1} << 31) - 1;
constexpr int kAttempts = 1000;

// splitmix64: the same numbers for the same seed on every build (std::hash is not portable).
class Draws {
 public:
  explicit Draws(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) / static_cast<double>(uint64_t{1} << 53); }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  // Log-uniform in [lo, hi]: 3 and 3000 alike when the range spans both.
  int64_t log_uniform(int64_t lo, int64_t hi) {
    if (lo >= hi) return lo;
    const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi) + 1);
    const auto v = static_cast<int64_t>(std::floor(std::exp(a + unit() * (b - a))));
    return std::clamp(v, lo, hi);
  }

 private:
  uint64_t state_;
};

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

bool is_prime(int64_t n) {
  if (n < 2) return false;
  if (n % 2 == 0) return n == 2;
  for (int64_t d = 3; d * d <= n; d += 2) {
    if (n % d == 0) return false;
  }
  return true;
}

std::vector<int64_t> powers_of_two(const HeldOutParam& p) {
  std::vector<int64_t> out;
  for (int64_t v = 1; v <= p.hi; v *= 2) {
    if (v >= p.lo && v % p.multiple_of == 0) out.push_back(v);
  }
  return out;
}

// The smallest value a range allows; 0 when it allows none.
int64_t smallest(const HeldOutParam& p) {
  if (p.kind == HeldOutParam::Kind::kOneOf) return *std::min_element(p.one_of.begin(), p.one_of.end());
  if (p.power_of_two) {
    auto powers = powers_of_two(p);
    return powers.empty() ? 0 : powers.front();
  }
  const int64_t v = (p.lo + p.multiple_of - 1) / p.multiple_of * p.multiple_of;
  return v <= p.hi ? v : 0;
}

// An even value near v in p's range that is no power of two (a block size does not divide it);
// v itself when the range has none.
int64_t even_near(const HeldOutParam& p, int64_t v) {
  for (int64_t step = 0; step < 64; ++step) {
    for (int64_t w : {v + step, v - step}) {
      if (w >= p.lo && w <= p.hi && w % 2 == 0 && (w & (w - 1)) != 0) return w;
    }
  }
  return v;
}

// `even`: the value is even and no power of two where the range allows it (every second
// held-out case: a mask widened only on even sizes, or a tail only odd sizes reach, is caught
// each run, not one run in ten).
int64_t draw_range(const HeldOutParam& p, Draws& draws, bool even) {
  if (p.power_of_two) {
    auto powers = powers_of_two(p);
    return powers[draws.below(powers.size())];
  }
  if (p.multiple_of > 1) {
    const int64_t klo = (p.lo + p.multiple_of - 1) / p.multiple_of, khi = p.hi / p.multiple_of;
    int64_t k = draws.log_uniform(klo, khi);
    if (k % 2 == 0 && draws.below(4) != 0) k = k + 1 <= khi ? k + 1 : k - 1 >= klo ? k - 1 : k;
    return k * p.multiple_of;
  }
  const int64_t v = draws.log_uniform(p.lo, p.hi);
  if (even) return even_near(p, v);
  const size_t lean = draws.below(10);
  if (lean < 5) {  // a prime near v: no block size divides it
    for (int64_t up = v; up <= p.hi && up < v + 10000; ++up) {
      if (is_prime(up)) return up;
    }
    for (int64_t down = v; down >= p.lo && down > v - 10000; --down) {
      if (is_prime(down)) return down;
    }
    return v;
  }
  if (lean < 8 && v % 2 == 0) return v + 1 <= p.hi ? v + 1 : v - 1 >= p.lo ? v - 1 : v;
  return v;  // any size, even ones that are no power of two included
}

Symbols numeric(const json& params) {
  Symbols out;
  for (const auto& [key, value] : params.items()) {
    if (value.is_number()) out[key] = value.get<double>();
  }
  return out;
}

// Fills the derived params of `params` (drawn and fixed ones set); false when one is not a
// positive integer (the draw is then tried again).
bool derive(const HeldOut& held_out, json& params) {
  for (const auto& p : held_out.params) {
    if (p.kind != HeldOutParam::Kind::kDerived) continue;
    const double v = evaluate_expression(p.expression, numeric(params));
    if (!(v >= 1) || v != std::floor(v) || v > static_cast<double>(kLargest)) return false;
    params[p.name] = static_cast<int64_t>(v);
  }
  return true;
}

bool fits(const HeldOut& held_out, const json& params) {
  return held_out.size.empty() || evaluate_expression(held_out.size, numeric(params)) <= held_out.max_size;
}

int64_t integer(const json& value, const std::string& field) {
  if (!value.is_number_integer()) throw HeldOutError(field, "must be an integer");
  const auto v = value.get<int64_t>();
  if (v < 1 || v > kLargest) throw HeldOutError(field, "must be between 1 and " + std::to_string(kLargest));
  return v;
}

HeldOutParam read_param(const std::string& name, const json& value) {
  const std::string field = "params." + name;
  HeldOutParam p;
  p.name = name;
  auto read_range = [&](const json& range, const std::string& at) {
    if (!range.is_array() || range.size() != 2) throw HeldOutError(at, "a range is [lo, hi], two integers");
    p.kind = HeldOutParam::Kind::kRange;
    p.lo = integer(range[0], at);
    p.hi = integer(range[1], at);
    if (p.lo > p.hi) throw HeldOutError(at, "lo " + std::to_string(p.lo) + " is above hi " + std::to_string(p.hi));
  };
  if (value.is_array()) {
    read_range(value, field);
    return p;
  }
  if (!value.is_object()) {  // a flag or a constant, passed as it is
    p.value = value;
    return p;
  }
  for (const auto& [key, _] : value.items()) {
    if (std::find(kParamKeys.begin(), kParamKeys.end(), key) == kParamKeys.end()) {
      throw HeldOutError(field + "." + key, "unknown field" + did_you_mean(key, kParamKeys));
    }
  }
  const int kinds = static_cast<int>(value.contains("range")) + value.contains("one_of") + value.contains("expr");
  if (kinds != 1) throw HeldOutError(field, "needs exactly one of range, one_of, expr");
  if (value.contains("range")) {
    read_range(value["range"], field + ".range");
    if (value.contains("multiple_of")) p.multiple_of = integer(value["multiple_of"], field + ".multiple_of");
    if (value.contains("power_of_two")) {
      if (!value["power_of_two"].is_boolean()) throw HeldOutError(field + ".power_of_two", "must be true or false");
      p.power_of_two = value["power_of_two"].get<bool>();
    }
    if (smallest(p) == 0) throw HeldOutError(field, "no value in the range meets its constraints");
    return p;
  }
  if (value.contains("multiple_of") || value.contains("power_of_two")) {
    throw HeldOutError(field, "multiple_of and power_of_two go with range");
  }
  if (value.contains("one_of")) {
    const json& list = value["one_of"];
    if (!list.is_array() || list.empty()) throw HeldOutError(field + ".one_of", "must be a non-empty list of integers");
    p.kind = HeldOutParam::Kind::kOneOf;
    for (const auto& item : list) p.one_of.push_back(integer(item, field + ".one_of"));
    return p;
  }
  if (!value["expr"].is_string()) throw HeldOutError(field + ".expr", "must be a string");
  p.kind = HeldOutParam::Kind::kDerived;
  p.expression = value["expr"].get<std::string>();
  return p;
}

// Derived params after those they use; an unknown symbol or a cycle is an error.
void order_derived(std::vector<HeldOutParam>& params) {
  std::set<std::string> known, names;
  for (const auto& p : params) names.insert(p.name);
  std::vector<HeldOutParam> ordered, pending;
  for (auto& p : params) {
    if (p.kind == HeldOutParam::Kind::kDerived) {
      for (const auto& symbol : expression_symbols(p.expression)) {
        if (!names.count(symbol)) {
          throw HeldOutError("params." + p.name + ".expr", "unknown symbol \"" + symbol + "\"" +
                                                               did_you_mean(symbol, {names.begin(), names.end()}));
        }
      }
      pending.push_back(std::move(p));
    } else {
      known.insert(p.name);
      ordered.push_back(std::move(p));
    }
  }
  while (!pending.empty()) {
    auto ready = std::find_if(pending.begin(), pending.end(), [&](const HeldOutParam& p) {
      auto symbols = expression_symbols(p.expression);
      return std::all_of(symbols.begin(), symbols.end(), [&](const std::string& s) { return known.count(s) > 0; });
    });
    if (ready == pending.end()) throw HeldOutError("params." + pending.front().name + ".expr", "derived params use each other in a cycle");
    known.insert(ready->name);
    ordered.push_back(std::move(*ready));
    pending.erase(ready);
  }
  params = std::move(ordered);
}

// The shape each range's smallest value gives.
json smallest_shape(const HeldOut& held_out) {
  json params = json::object();
  for (const auto& p : held_out.params) {
    if (p.kind == HeldOutParam::Kind::kFixed) params[p.name] = p.value;
    if (p.kind == HeldOutParam::Kind::kRange || p.kind == HeldOutParam::Kind::kOneOf) params[p.name] = smallest(p);
  }
  return params;
}

}  // namespace

json HeldOut::to_json() const {
  json out = {{"size", size}, {"max_size", max_size}, {"dtypes", dtypes}};
  json list = json::array();
  for (const auto& p : params) {
    list.push_back({{"name", p.name}, {"kind", static_cast<int>(p.kind)}, {"lo", p.lo}, {"hi", p.hi},
                    {"multiple_of", p.multiple_of}, {"power_of_two", p.power_of_two}, {"one_of", p.one_of},
                    {"expr", p.expression}, {"value", p.value}});
  }
  out["params"] = list;
  return out;
}

HeldOut read_held_out(const json& table, const Task& task, const std::vector<std::string>& param_order) {
  if (!table.is_object()) throw HeldOutError("", "must be a table");
  for (const auto& [key, _] : table.items()) {
    if (std::find(kTableKeys.begin(), kTableKeys.end(), key) == kTableKeys.end()) {
      throw HeldOutError(key, "unknown field" + did_you_mean(key, kTableKeys));
    }
  }
  HeldOut held_out;
  if (!table.contains("params") || !table["params"].is_object() || table["params"].empty()) {
    throw HeldOutError("params", "must be a table of the shape symbols' ranges");
  }
  const json& params = table["params"];
  std::vector<std::string> order = param_order;
  for (const auto& [key, _] : params.items()) {
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  }
  for (const auto& name : order) {
    if (!params.contains(name)) continue;
    held_out.params.push_back(read_param(name, params[name]));
    held_out.names.push_back(name);
  }
  order_derived(held_out.params);
  if (table.contains("size") != table.contains("max_size")) {
    throw HeldOutError(table.contains("size") ? "max_size" : "size", "size and max_size go together");
  }
  if (table.contains("size")) {
    if (!table["size"].is_string()) throw HeldOutError("size", "must be an expression over the params");
    held_out.size = table["size"].get<std::string>();
    if (!table["max_size"].is_number() || table["max_size"].get<double>() <= 0) {
      throw HeldOutError("max_size", "must be a number above 0");
    }
    held_out.max_size = table["max_size"].get<double>();
  }
  if (table.contains("dtypes")) {
    const json& dtypes = table["dtypes"];
    if (!dtypes.is_array() || dtypes.empty()) throw HeldOutError("dtypes", "must be a non-empty list of the task's dtypes");
    for (const auto& d : dtypes) {
      const std::string dtype = d.is_string() ? d.get<std::string>() : d.dump();
      if (std::find(task.dtypes.begin(), task.dtypes.end(), dtype) == task.dtypes.end()) {
        throw HeldOutError("dtypes", "\"" + dtype + "\" is not among the task's dtypes" + did_you_mean(dtype, task.dtypes));
      }
      held_out.dtypes.push_back(dtype);
    }
  }
  // Every symbol all the task's cases set, make_inputs may need.
  std::vector<std::string> names;
  for (const auto& p : held_out.params) names.push_back(p.name);
  const json first = task.cases.empty() ? json::object() : task.cases.front().params;
  for (const auto& [key, _] : first.items()) {
    const bool everywhere = std::all_of(task.cases.begin(), task.cases.end(),
                                        [&](const TaskCase& c) { return c.params.contains(key); });
    if (everywhere && std::find(names.begin(), names.end(), key) == names.end()) {
      throw HeldOutError("params", "missing \"" + key + "\", which every case sets" + did_you_mean(key, names));
    }
  }
  json shape = smallest_shape(held_out);
  try {
    if (!derive(held_out, shape)) throw HeldOutError("params", "a derived param of the smallest shape " + shape.dump() + " is no positive integer");
    Symbols symbols = numeric(shape);
    symbols["elem"] = 4;
    evaluate_expression(task.flops, symbols);
    evaluate_expression(task.bytes, symbols);
    if (!fits(held_out, shape)) {
      throw HeldOutError("max_size", "the smallest shape " + shape.dump() + " is over max_size");
    }
  } catch (const HeldOutError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw HeldOutError("params", e.what());
  }
  return held_out;
}

std::vector<TaskCase> draw_held_out(const Task& task, uint64_t seed, int count) {
  std::vector<TaskCase> cases;
  if (task.held_out.empty()) return cases;
  const HeldOut& held_out = task.held_out;
  const std::vector<std::string>& dtypes = held_out.dtypes.empty() ? task.dtypes : held_out.dtypes;
  for (int i = 0; i < count; ++i) {
    Draws draws(seed ^ fnv1a(task.name + "/held_out/" + std::to_string(i)));
    json params;
    for (int attempt = 0; attempt <= kAttempts; ++attempt) {
      params = json::object();
      for (const auto& p : held_out.params) {
        if (p.kind == HeldOutParam::Kind::kFixed) params[p.name] = p.value;
        if (p.kind == HeldOutParam::Kind::kOneOf) params[p.name] = p.one_of[draws.below(p.one_of.size())];
        if (p.kind == HeldOutParam::Kind::kRange) params[p.name] = draw_range(p, draws, i % 2 == 1);
      }
      if (attempt == kAttempts) params = smallest_shape(held_out);  // fits: read_held_out checked
      if (derive(held_out, params) && fits(held_out, params)) break;
    }
    TaskCase c;
    c.name = kHeldOutPrefix + std::to_string(i + 1);
    std::vector<std::string> names = held_out.names;
    if (names.empty()) {
      for (const auto& p : held_out.params) names.push_back(p.name);
    }
    for (const auto& name : names) {
      auto p = std::find_if(held_out.params.begin(), held_out.params.end(),
                            [&](const HeldOutParam& q) { return q.name == name; });
      if (p->kind != HeldOutParam::Kind::kFixed) c.name += " " + name + "=" + params[name].dump();
    }
    c.small = true;
    c.params = params;
    c.numeric_params = numeric(params);
    c.dtypes = {dtypes[draws.below(dtypes.size())]};
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace keval
