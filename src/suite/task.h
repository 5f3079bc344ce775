#pragma once
// A task of a suite: what to compute, on which cases, judged with which tolerances.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/expression.h"
#include "suite/held_out.h"

namespace keval {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  std::string reason;
};

struct TaskCase {
  std::string name;
  bool small = false;
  nlohmann::json params = nlohmann::json::object();  // passed to make_inputs as they are
  Symbols numeric_params;                            // the numeric ones, for cost expressions
  std::vector<std::string> dtypes;                   // empty: the task's dtypes
  // Overrides of the task's tolerances for this case (a case whose inputs make some outputs
  // cancel needs an absolute bound scaled to its terms, not to its outputs).
  std::map<std::string, Tolerance> tolerance;
};

struct Task {
  std::string name;
  int version = 1;
  std::string track;
  std::string category;
  int difficulty = 1;
  std::string entry;
  std::string signature;
  std::string instruction;
  std::vector<std::string> dtypes;
  bool inplace = false;
  // The precision the task computes in: "fp32" (default), "tf32" or "any" (judge/precision_check.h).
  std::string precision = "fp32";
  bool require_kernel = true;  // false only for peer tasks judged by their own (PyTorch) rules
  bool shared_inputs = true;   // make_inputs is CPU-only: the worker builds inputs once per slot
  // make_inputs may be called with the job's device as the default device (implied by
  // shared_inputs): on CUDA a peer's large inputs are drawn on the GPU, not on one CPU thread.
  bool inputs_on_device = false;
  // The reference job calls the reference a second time after poisoning free memory; elements
  // that change are undefined in the reference and not judged (peer references whose kernels
  // leave outputs partly unwritten).
  bool check_reference_defined = false;
  std::string flops;
  std::string bytes;
  std::string source;  // where shapes come from (e.g. "Llama-3-8B hidden 4096"), optional
  std::string notes;   // e.g. why a golden sits below the ceiling, optional
  // The peer package of runner/keval_adapters that wrote the task ("kernelbench"), empty for a
  // native task: the task's evaluation key follows that adapter's code and no other's.
  std::string adapter;
  // The measured matmul rate that bounds the task's flops ("float32_ieee" for a full-precision
  // float32 product, which tensor cores cannot do); empty: the rate of the case's dtype.
  std::string compute_rate;
  std::map<std::string, Tolerance> tolerance;  // by dtype name
  std::vector<TaskCase> cases;
  HeldOut held_out;  // how the shape symbols may vary in held-out cases; empty: none
  std::filesystem::path dir;  // holds task.toml, reference.py, golden.py

  std::vector<std::string> dtypes_of(const TaskCase& c) const {
    return c.dtypes.empty() ? dtypes : c.dtypes;
  }
  const Tolerance& tolerance_of(const TaskCase& c, const std::string& dtype) const {
    auto own = c.tolerance.find(dtype);
    return own != c.tolerance.end() ? own->second : tolerance.at(dtype);
  }
  std::filesystem::path golden_path() const { return dir / "golden.py"; }
  std::filesystem::path reference_path() const { return dir / "reference.py"; }
};

// Bytes per element of a dtype name ("float16" → 2); 0 for an unknown name.
int dtype_size(const std::string& dtype);

// Cost of one call of a case in a dtype, from the task's expressions.
double case_flops(const Task& task, const TaskCase& c, const std::string& dtype);
double case_bytes(const Task& task, const TaskCase& c, const std::string& dtype);

}  // namespace keval
