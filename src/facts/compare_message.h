#pragma once
// The reference job's comparison of one call's saved outputs with the reference's, typed.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/verdict_messages.h"

namespace keval {

// One output present on both sides. Value facts are read only where shape and dtype agree
// (the rest is wrong_shape or wrong_dtype, and the runner sends them null).
struct OutputComparison {
  long long index = 0;
  nlohmann::json shape, ref_shape;  // arrays of extents, quoted in reasons as they came
  std::string dtype, ref_dtype;
  long long numel = 0, n_over_tol = 0, nan = 0, inf = 0, ref_nan = 0, ref_inf = 0;
  std::optional<double> max_abs_err, max_rel_err;  // none where no element pair is finite
  std::optional<double> atol, rtol;                 // the tolerance applied
  nlohmann::json first_bad;  // null, or {flat_index, position, actual, expected}
  long long ref_undefined = 0;  // elements the reference leaves undefined: not judged
  // The per-output statistics the judge applies the tolerance from (judge/tolerance_check.h);
  // absent in facts stored before them, where n_over_tol decides.
  bool has_statistics = false;
  double max_tol_ratio = 0;  // infinity for "inf"; 0 without a finite pair (null)
  long long nan_disagree = 0, inf_disagree = 0;
  // Facts of the precision policy (judge/precision_check.h), absent in older facts:
  // mean |out - ref| / mean |ref| over pairs finite on both sides (none: not measured, or no
  // finite error), elements other than 0 on each side, and per lower precision the reference's
  // own error on its inputs rounded to it (none where that error is not finite).
  std::optional<double> mean_rel_err;
  std::optional<long long> nonzero, ref_nonzero;
  std::vector<std::pair<std::string, std::optional<double>>> lower_precision_err;

  bool same_layout() const { return shape == ref_shape && dtype == ref_dtype; }
};

struct CompareMessage {
  static constexpr const char* kType = "compare";
  Place at;
  bool missing = false;  // the candidate saved no outputs for this call
  long long n_outputs = 0, ref_n_outputs = 0;
  std::vector<OutputComparison> outputs;
  std::optional<bool> rerun_differs_where_defined;
  static CompareMessage read(FieldReader& fields);
};

}  // namespace keval
