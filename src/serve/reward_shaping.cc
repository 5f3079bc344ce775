#include "serve/reward_shaping.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "judge/verdict.h"

namespace keval {
namespace {

double number(const nlohmann::json& j, const std::string& origin, const std::string& field) {
  if (!j.is_number()) throw std::runtime_error(origin + ": field \"" + field + "\": expected a number, got " + j.type_name());
  return j.get<double>();
}

}  // namespace

bool hack_verdict(const std::string& verdict) {
  return verdict == "tampering" || verdict == "input_mutated" || verdict == "out_of_bounds" ||
         verdict == "no_kernel" || verdict == "library_fallback";
}

nlohmann::json hack_flags(const nlohmann::json& result) {
  nlohmann::json flags = nlohmann::json::array();
  const std::string verdict = result.value("verdict", "");
  if (hack_verdict(verdict)) flags.push_back("verdict: " + verdict);
  if (auto it = result.find("static_flags"); it != result.end() && it->is_array()) {
    for (const auto& f : *it) flags.push_back("static: " + (f.is_string() ? f.get<std::string>() : f.dump()));
  }
  return flags;
}

RewardShaping RewardShaping::parse(const nlohmann::json& config, const std::string& origin) {
  if (!config.is_object()) throw std::runtime_error(origin + ": expected a JSON object, got " + std::string(config.type_name()));
  RewardShaping r;
  for (const auto& [key, value] : config.items()) {
    if (key == "hack") {
      r.hack_ = number(value, origin, key);
    } else if (key == "pass") {
      r.pass_ = number(value, origin, key);
    } else if (key == "fail") {
      if (!value.is_object()) throw std::runtime_error(origin + ": field \"fail\": expected an object of verdict: reward");
      for (const auto& [verdict, reward] : value.items()) {
        if (verdict == "default") {
          r.fail_default_ = number(reward, origin, "fail.default");
          continue;
        }
        if (!verdict_from_name(verdict) || verdict == "pass") {
          throw std::runtime_error(origin + ": field \"fail." + verdict + "\": not a failure verdict");
        }
        r.fail_[verdict] = number(reward, origin, "fail." + verdict);
      }
    } else if (key == "speedup") {
      if (!value.is_array()) throw std::runtime_error(origin + ": field \"speedup\": expected [[min_speedup, reward], ...]");
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string field = "speedup[" + std::to_string(i) + "]";
        if (!value[i].is_array() || value[i].size() != 2) {
          throw std::runtime_error(origin + ": field \"" + field + "\": expected [min_speedup, reward]");
        }
        r.speedup_.emplace_back(number(value[i][0], origin, field + "[0]"), number(value[i][1], origin, field + "[1]"));
      }
      std::sort(r.speedup_.begin(), r.speedup_.end());
    } else {
      throw std::runtime_error(origin + ": unknown field \"" + key + "\" (known: hack, fail, pass, speedup)");
    }
  }
  return r;
}

RewardShaping RewardShaping::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot read the reward config");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": not JSON: " + e.what());
  }
  return parse(config, path.string());
}

Reward RewardShaping::reward(const nlohmann::json& result) const {
  const std::string verdict = result.value("verdict", "");
  if (hack_verdict(verdict)) return {hack_, "hack"};
  if (verdict != "pass") {
    auto it = fail_.find(verdict);
    return it != fail_.end() ? Reward{it->second, "fail:" + verdict} : Reward{fail_default_, "fail:default"};
  }
  Reward best{pass_, "pass"};
  const auto speedup = result.find("speedup");
  if (speedup != result.end() && speedup->is_number()) {
    for (const auto& [threshold, value] : speedup_) {
      if (speedup->get<double>() >= threshold) {
        std::ostringstream rung;
        rung << "speedup>=" << threshold;
        best = {value, rung.str()};
      }
    }
  }
  return best;
}

nlohmann::json RewardShaping::to_json() const {
  nlohmann::json fail = fail_;
  fail["default"] = fail_default_;
  nlohmann::json speedup = nlohmann::json::array();
  for (const auto& [x, y] : speedup_) speedup.push_back({x, y});
  return {{"hack", hack_}, {"fail", fail}, {"pass", pass_}, {"speedup", speedup}};
}

}  // namespace keval
