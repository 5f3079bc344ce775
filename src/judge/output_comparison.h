#pragma once
// The verdict on the submission's outputs, from the reference job's comparisons: the count and
// shapes of the outputs, their dtypes, NaN and Inf where the reference has none, and values
// within the task's tolerance times `policy.tolerance_scale` (tolerance_check.h), an output not
// all zero where the reference's is not, and float32 outputs not explained by a lower precision
// than the task's (precision_check.h).
#include <optional>
#include <vector>

#include "facts/compare_message.h"
#include "judge/judge_policy.h"
#include "judge/verdict.h"

namespace keval {

// nullopt when every output of every comparison is right. Otherwise the most severe class
// found decides (wrong_shape, wrong_dtype, nan_mismatch, mismatch, in that order), and its
// reasons come first: a nan_mismatch led by another output's "elements outside tolerance" read
// as a contradiction.
std::optional<Judgement> judge_outputs(const std::vector<CompareMessage>& compares, const JudgePolicy& policy);

}  // namespace keval
