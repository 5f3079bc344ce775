#include "facts/verdict_messages.h"

namespace keval {

Place Place::read_required(FieldReader& fields) {
  Place at;
  at.case_name = fields.string("case");
  at.dtype = fields.string("dtype");
  at.seed = fields.integer("seed");
  return at;
}

Place Place::read_nullable(FieldReader& fields) {
  Place at;
  at.case_name = fields.nullable_string("case");
  at.dtype = fields.nullable_string("dtype");
  at.seed = fields.nullable_integer("seed");
  return at;
}

std::string Place::text() const {
  if (!case_name) return "";
  std::string out = "case " + *case_name;
  if (dtype) out += " " + *dtype;
  if (seed) out += " seed " + std::to_string(*seed);
  return out;
}

bool Place::same_call(const Place& other) const {
  return case_name.value_or("") == other.case_name.value_or("") && dtype.value_or("") == other.dtype.value_or("") &&
         seed && other.seed && *seed == *other.seed;
}

bool Place::same_case(const std::string& name, const std::string& type) const {
  return case_name.value_or("") == name && dtype.value_or("") == type;
}

CallMessage CallMessage::read(FieldReader& fields) {
  CallMessage m;
  m.at = Place::read_required(fields);
  m.ok = fields.boolean("ok");
  m.kernels = fields.strings("kernels");
  m.other_kernels = fields.strings("other_kernels");
  m.inputs_mutated = fields.boolean("inputs_mutated");
  m.output_is_input = fields.boolean("output_is_input");
  m.guard_violations = fields.integers("guard_violations");
  m.guard_bands_dropped = fields.nullable_string("guard_bands_dropped");
  m.foreign_output_types = fields.strings("foreign_output_types");
  return m;
}

DeterminismMessage DeterminismMessage::read(FieldReader& fields) {
  DeterminismMessage m;
  m.at = Place::read_required(fields);
  m.same = fields.boolean("same");
  m.max_abs_diff = fields.nullable_measure("max_abs_diff");
  return m;
}

TimingMessage TimingMessage::read(FieldReader& fields) {
  TimingMessage m;
  m.at = Place::read_required(fields);
  m.method = fields.string("method");
  m.samples_ms = fields.numbers("samples_ms");
  // A message without `who` is read as the candidate's, so it needs the candidate's facts.
  m.who = fields.optional_string("who").value_or("candidate");
  if (m.candidate()) {
    m.timed_output_mismatches = fields.integer("timed_output_mismatches");
    m.l2_persisting_bytes = fields.integer("l2_persisting_bytes");
  } else {
    m.timed_output_mismatches = fields.optional_integer("timed_output_mismatches").value_or(0);
    m.l2_persisting_bytes = fields.optional_integer("l2_persisting_bytes").value_or(0);
  }
  m.timed_output_checks = fields.optional_integer("timed_output_checks").value_or(0);
  // the side-stream check reads them: event-timed samples always have them
  if (m.method == "cuda_event_cold_l2") fields.array("host_samples_ms");
  m.host_samples_ms = fields.nullable_numbers("host_samples_ms");
  m.stop_reason = fields.nullable_string("stop_reason").value_or("");
  return m;
}

KernelProfileMessage KernelProfileMessage::read(FieldReader& fields) {
  KernelProfileMessage m;
  m.at = Place::read_required(fields);
  m.own_share = fields.number_or_null("own_share");
  for (const auto& kernel : fields.array("kernels")) {
    if (!kernel.is_object()) {
      fields.fail("a kernel of " + fields.what() + " is " + kernel.type_name() + ", expected an object");
      break;
    }
    FieldReader of_kernel(kernel, "a kernel of " + fields.what());
    ProfiledKernel k;
    k.name = of_kernel.optional_string("name").value_or("?");
    k.own = of_kernel.optional_boolean("own").value_or(false);
    if (of_kernel.fault()) fields.fail(*of_kernel.fault());
    m.kernels.push_back(std::move(k));
  }
  return m;
}

AblationMessage AblationMessage::read(FieldReader& fields) {
  AblationMessage m;
  m.at = Place::read_nullable(fields);  // a guest lost during the ablation names no case
  m.outputs_unchanged = fields.boolean("outputs_unchanged");
  m.suppressed = fields.strings("suppressed");
  return m;
}

TamperingMessage TamperingMessage::read(FieldReader& fields) {
  TamperingMessage m;
  m.at = Place::read_nullable(fields);
  m.stage = fields.string("stage");
  m.names = fields.strings("names");
  return m;
}

ErrorMessage ErrorMessage::read(FieldReader& fields) {
  ErrorMessage m;
  m.at = Place::read_nullable(fields);
  m.stage = fields.string("stage");
  m.error_kind = fields.string("error_kind");
  m.error_class = fields.optional_string("error_class").value_or("");
  m.message = fields.optional_string("message").value_or("");
  m.line = fields.nullable_integer("line");
  m.out_of_memory = fields.optional_boolean("out_of_memory").value_or(false);
  m.device_free_share = fields.nullable_measure("device_free_share");
  return m;
}

MemcheckMessage MemcheckMessage::read(FieldReader& fields) {
  MemcheckMessage m;
  m.summary_found = fields.boolean("summary_found");
  m.errors = fields.integer("errors");
  m.first_errors = fields.optional_strings("first_errors").value_or(std::vector<std::string>{});
  m.log = fields.optional_string("log").value_or("?");
  return m;
}

}  // namespace keval
