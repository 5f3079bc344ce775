#pragma once
// An optional reward for RL clients, computed from a judged result by a ladder of rungs (like
// KernelGYM's: broken < runs < correct < faster). The raw facts (verdict, reasons, speedup and
// its CI, hack flags) always stay in the answer beside it.
//
// The config file is JSON:
//   {"hack": -1.0,                                  any hack verdict (hack_verdict below)
//    "fail": {"default": 0.0, "compile_error": -0.5, ...},   by verdict
//    "pass": 1.0,                                   correct, not faster than any rung below
//    "speedup": [[1.0, 1.2], [1.5, 1.5], [2.0, 2.0]]}  pass with speedup >= x: reward y (the highest x met)
// Every field is optional; a missing one is 0 (speedup: none).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace keval {

struct Reward {
  double value = 0;
  std::string rung;  // which rung gave it: "hack", "fail:compile_error", "pass", "speedup>=1.5"
};

class RewardShaping {
 public:
  // Throws std::runtime_error naming `origin` (the file) and the field.
  static RewardShaping parse(const nlohmann::json& config, const std::string& origin);
  static RewardShaping load(const std::filesystem::path& path);

  // From a result object (results.jsonl's form).
  Reward reward(const nlohmann::json& result) const;
  nlohmann::json to_json() const;

 private:
  double hack_ = 0;
  double fail_default_ = 0;
  std::map<std::string, double> fail_;
  double pass_ = 0;
  std::vector<std::pair<double, double>> speedup_;  // ascending by threshold
};

// Verdicts that mean the submission tried to game the judge rather than failed honestly.
bool hack_verdict(const std::string& verdict);

// What the answer lists as hack flags: the verdict when it is one, and the static scan's findings.
nlohmann::json hack_flags(const nlohmann::json& result);

}  // namespace keval
