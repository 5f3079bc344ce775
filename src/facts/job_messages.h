#pragma once
// The runner messages about a job's life rather than its verdict, typed: the zygote's
// (ready, started, exit), the environment's (probe, ceilings, sandbox), the device handshakes,
// and the job's own end (done, variant_done). Fields are those the controller reads.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/message_fields.h"

namespace keval {

struct ReadyMessage {  // the zygote, once, before any request
  static constexpr const char* kType = "ready";
  std::optional<std::string> python, torch, triton;
  static ReadyMessage read(FieldReader& fields);
};

struct StartedMessage {  // the zygote forked the job's child
  static constexpr const char* kType = "started";
  long long pid = 0;  // also the child's process group
  static StartedMessage read(FieldReader& fields);
};

struct ExitMessage {  // the zygote reaped the job's child
  static constexpr const char* kType = "exit";
  std::optional<long long> code, signal;
  static ExitMessage read(FieldReader& fields);
};

struct SandboxMessage {
  static constexpr const char* kType = "sandbox";
  std::optional<long long> uid;
  std::vector<std::string> warnings;
  static SandboxMessage read(FieldReader& fields);
};

struct ProbeMessage {
  static constexpr const char* kType = "probe";
  bool cuda = false;
  std::string device;
  std::optional<std::string> gpu_name, driver, torch, torch_cuda, triton, python;
  std::optional<long long> gpu_count;
  static ProbeMessage read(FieldReader& fields);
};

struct CeilingsMessage {
  static constexpr const char* kType = "ceilings";
  double copy_gbps = 0;
  std::map<std::string, double> matmul_tflops;
  static CeilingsMessage read(FieldReader& fields);
};

struct EntryMessage {
  static constexpr const char* kType = "entry";
  std::string name;
  static EntryMessage read(FieldReader& fields);
};

struct CompileWarmUpMessage {
  static constexpr const char* kType = "compile_warm_up";
  bool ok = false;
  static CompileWarmUpMessage read(FieldReader& fields);
};

// The device handshakes (device_gate_share.h, device_gate_alone.h): no fields beyond the type.
struct DeviceMessage {
  std::string type;  // device_alone, device_shared, device_paused, device_idle, device_busy
  static bool is_device_type(const std::string& type);
};

// A job's peak memory (runner/keval_runner/device/peak_memory.py). Diagnostic: no verdict reads it.
struct PeakMemory {
  long long host_bytes = 0;  // the largest resident set of the job's processes
  long long gpu_bytes = 0;   // the most the job's own allocator reserved
  std::optional<long long> guest_gpu_bytes;  // what its guest reported (the submission's word)
  std::optional<long long> io_bytes;         // the most one call's inputs and outputs took
};

struct DoneMessage {
  static constexpr const char* kType = "done";
  // Seconds per phase of the job. Informational: an entry that is not a number is left out.
  std::map<std::string, double> phases;
  std::optional<PeakMemory> peak_memory;  // absent from runners before it was sent
  static DoneMessage read(FieldReader& fields);
};

struct VariantDoneMessage {  // keval sweep: every fact about this variant was sent
  static constexpr const char* kType = "variant_done";
  long long variant = 0;
  static VariantDoneMessage read(FieldReader& fields);
};

}  // namespace keval
