#pragma once
// Runner messages as the runner sends them, for the judge's tests: every fact it always sends
// is there, so a test that removes or changes one pins exactly that fact.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/evaluation_facts.h"

namespace keval::test_facts {

using nlohmann::json;

inline JobOutcome finished(std::vector<json> messages) {
  JobOutcome job;
  job.messages = std::move(messages);
  job.messages.push_back({{"type", "done"}});
  job.done = true;
  job.exit_code = 0;
  return job;
}

inline json call(bool mutated = false, std::vector<std::string> kernels = {"add_kernel"}) {
  return {{"type", "call"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7}, {"ok", true},
          {"kernels", kernels}, {"other_kernels", json::array()}, {"inputs_mutated", mutated},
          {"output_is_input", false}, {"guard_violations", json::array()},
          {"guard_bands_dropped", nullptr}, {"foreign_output_types", json::array()}, {"n_outputs", 1}, {"wall_ms", 0.5}, {"poisoned", true}};
}

// The re-run of the call above.
inline json determinism(bool same = true) {
  return {{"type", "determinism"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7},
          {"same", same}, {"max_abs_diff", same ? 0.0 : 3.0}};
}

inline json output(json shape, std::string dtype, long long over, long long nan = 0) {
  return {{"index", 0}, {"shape", shape}, {"ref_shape", {37}}, {"dtype", dtype},
          {"ref_dtype", "float32"}, {"numel", 37}, {"max_abs_err", 0.5}, {"max_rel_err", 0.1},
          {"n_over_tol", over}, {"nan", nan}, {"inf", 0}, {"ref_nan", 0}, {"ref_inf", 0}};
}

inline json compare(std::vector<json> outputs) {
  return {{"type", "compare"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7},
          {"missing", false}, {"n_outputs", outputs.size()}, {"ref_n_outputs", 1},
          {"outputs", outputs}};
}

// The timing job's sample of the call's case; `who` is "candidate" or a baseline.
inline json timing(std::string who = "candidate", std::string method = "wall_clock") {
  json sample = {{"type", "timing"}, {"who", who}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7},
                 {"method", method}, {"samples_ms", {1.0, 1.0}}, {"l2_persisting_bytes", 0},
                 {"host_samples_ms", nullptr}};
  if (who == "candidate") {
    sample["timed_output_checks"] = 5;
    sample["timed_output_mismatches"] = 0;
    sample["input_sets"] = 2;
  }
  if (method == "cuda_event_cold_l2") sample["host_samples_ms"] = {1.0, 1.0};
  return sample;
}

inline json kernel_profile(json own_share, json kernels = json::array()) {
  return {{"type", "kernel_profile"}, {"case", "odd"}, {"dtype", "float32"}, {"seed", 7},
          {"own_share", own_share}, {"kernels", kernels}};
}

// A correct submission's facts: its call and re-run, and the reference's comparison.
inline EvaluationFacts facts_with(std::vector<json> outputs) {
  return {finished({call(), determinism()}), finished({compare(std::move(outputs))})};
}

}  // namespace keval::test_facts
