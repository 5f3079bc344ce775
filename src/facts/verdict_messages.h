#pragma once
// The runner messages a verdict is decided from, as typed structs. Each reads the fields the
// controller reads; the runner sends more (the schema lists them all). A field a struct reads
// without a default is one the runner always sends: missing, it is the message's fault.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/message_fields.h"

namespace keval {

// The call a fact is about: its case, dtype and seed (each null in facts not about one call).
struct Place {
  std::optional<std::string> case_name;
  std::optional<std::string> dtype;
  std::optional<long long> seed;

  static Place read_required(FieldReader& fields);
  static Place read_nullable(FieldReader& fields);
  // "case odd float32 seed 7", or "" when the fact names no case.
  std::string text() const;
  bool same_call(const Place& other) const;
  bool same_case(const std::string& name, const std::string& type) const;
};

struct CallMessage {
  static constexpr const char* kType = "call";
  Place at;
  bool ok = false;
  std::vector<std::string> kernels;        // the submission's own Triton kernels it launched
  std::vector<std::string> other_kernels;  // Triton kernels from elsewhere
  bool inputs_mutated = false;
  bool output_is_input = false;
  std::vector<long long> guard_violations;  // inputs whose guard bands changed
  // Why the warden placed no guard bands though asked (out of memory); absent in older facts.
  std::optional<std::string> guard_bands_dropped;
  std::vector<std::string> foreign_output_types;
  static CallMessage read(FieldReader& fields);
};

struct DeterminismMessage {
  static constexpr const char* kType = "determinism";
  Place at;
  bool same = false;
  std::optional<double> max_abs_diff;
  static DeterminismMessage read(FieldReader& fields);
};

struct TimingMessage {
  static constexpr const char* kType = "timing";
  Place at;
  std::string who = "candidate";  // or a baseline's name
  std::string method;             // "cuda_event_cold_l2" or "wall_clock"
  std::vector<double> samples_ms;
  std::optional<std::vector<double>> host_samples_ms;  // CUDA only
  std::string stop_reason;
  long long timed_output_checks = 0;
  long long timed_output_mismatches = 0;
  long long l2_persisting_bytes = 0;
  bool candidate() const { return who == "candidate"; }
  static TimingMessage read(FieldReader& fields);
};

struct ProfiledKernel {
  std::string name = "?";
  bool own = false;
};

struct KernelProfileMessage {
  static constexpr const char* kType = "kernel_profile";
  Place at;
  std::optional<double> own_share;  // null: the call took no device time at all
  std::vector<ProfiledKernel> kernels;
  static KernelProfileMessage read(FieldReader& fields);
};

struct AblationMessage {
  static constexpr const char* kType = "ablation";
  Place at;
  bool outputs_unchanged = false;
  std::vector<std::string> suppressed;
  static AblationMessage read(FieldReader& fields);
};

struct TamperingMessage {
  static constexpr const char* kType = "tampering";
  Place at;
  std::string stage;
  std::vector<std::string> names;
  static TamperingMessage read(FieldReader& fields);
};

struct ErrorMessage {
  static constexpr const char* kType = "error";
  Place at;
  std::string stage;
  std::string error_kind;
  std::string error_class;
  std::string message;
  std::optional<long long> line;
  // set by the process that saw the device refuse its own allocation (the warden, the reference
  // job), never from the guest's word: the one reason a job is retried alone (device_memory.h)
  bool out_of_memory = false;
  // after the guest's OutOfMemoryError: the free share of the device the warden saw
  std::optional<double> device_free_share;
  static ErrorMessage read(FieldReader& fields);
};

// Made by the controller (SanitizedRunner) from compute-sanitizer's log, never by the runner.
struct MemcheckMessage {
  static constexpr const char* kType = "memcheck";
  bool summary_found = false;
  long long errors = 0;
  std::vector<std::string> first_errors;
  std::string log;
  static MemcheckMessage read(FieldReader& fields);
};

}  // namespace keval
