#include "facts/compare_message.h"

#include <algorithm>

namespace keval {
namespace {

using nlohmann::json;

OutputComparison read_output(FieldReader& of_output) {
  OutputComparison out;
  out.index = of_output.integer("index");
  out.shape = of_output.array("shape");
  out.ref_shape = of_output.array("ref_shape");
  out.dtype = of_output.string("dtype");
  out.ref_dtype = of_output.string("ref_dtype");
  out.max_abs_err = of_output.nullable_measure("max_abs_err");
  out.max_rel_err = of_output.nullable_measure("max_rel_err");
  out.atol = of_output.nullable_measure("atol");
  out.rtol = of_output.nullable_measure("rtol");
  out.ref_undefined = of_output.optional_integer("ref_undefined").value_or(0);
  if (const json* bad = of_output.nullable_object("first_bad")) out.first_bad = *bad;
  if (of_output.fault() || !out.same_layout()) return out;
  out.numel = of_output.integer("numel");
  out.n_over_tol = of_output.integer("n_over_tol");
  out.nan = of_output.integer("nan");
  out.inf = of_output.integer("inf");
  out.ref_nan = of_output.integer("ref_nan");
  out.ref_inf = of_output.integer("ref_inf");
  // all three statistics or none (facts stored before them)
  if (of_output.has("max_tol_ratio") || of_output.has("nan_disagree") || of_output.has("inf_disagree")) {
    out.has_statistics = true;
    out.max_tol_ratio = of_output.ratio("max_tol_ratio");
    out.nan_disagree = of_output.integer("nan_disagree");
    out.inf_disagree = of_output.integer("inf_disagree");
  }
  out.mean_rel_err = of_output.nullable_measure("mean_rel_err");
  out.nonzero = of_output.nullable_integer("nonzero");
  out.ref_nonzero = of_output.nullable_integer("ref_nonzero");
  if (const json* lower = of_output.nullable_object("lower_precision_err")) {
    FieldReader of_lower(*lower, "lower_precision_err of " + of_output.what());
    for (const auto& [name, _] : lower->items()) {
      out.lower_precision_err.emplace_back(name, of_lower.nullable_measure(name.c_str()));
    }
    if (of_lower.fault()) of_output.fail(*of_lower.fault());
  }
  return out;
}

}  // namespace

CompareMessage CompareMessage::read(FieldReader& fields) {
  CompareMessage m;
  m.at = Place::read_required(fields);
  m.missing = fields.boolean("missing");
  m.rerun_differs_where_defined = fields.optional_boolean("rerun_differs_where_defined");
  if (fields.fault() || m.missing) return m;
  m.n_outputs = fields.integer("n_outputs");
  m.ref_n_outputs = fields.integer("ref_n_outputs");
  const json& outputs = fields.array("outputs");
  if (fields.fault()) return m;
  const auto listed = static_cast<long long>(outputs.size());
  const long long expected = std::min(m.n_outputs, m.ref_n_outputs);
  if (listed != expected) {
    fields.fail(fields.what() + " carries facts for " + std::to_string(listed) + " output(s), " +
                std::to_string(expected) + " expected");
    return m;
  }
  for (const json& output : outputs) {
    const std::string named = "output of " + fields.what();
    if (!output.is_object()) {
      fields.fail("an " + named + " is " + output.type_name() + ", expected an object");
      return m;
    }
    FieldReader of_output(output, named);
    m.outputs.push_back(read_output(of_output));
    if (of_output.fault()) {
      fields.fail(*of_output.fault());
      return m;
    }
  }
  return m;
}

}  // namespace keval
