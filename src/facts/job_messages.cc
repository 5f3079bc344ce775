#include "facts/job_messages.h"

namespace keval {

using nlohmann::json;

ReadyMessage ReadyMessage::read(FieldReader& fields) {
  ReadyMessage m;
  m.python = fields.nullable_string("python");
  m.torch = fields.nullable_string("torch");
  m.triton = fields.nullable_string("triton");
  return m;
}

StartedMessage StartedMessage::read(FieldReader& fields) {
  StartedMessage m;
  m.pid = fields.integer("pid");
  return m;
}

ExitMessage ExitMessage::read(FieldReader& fields) {
  ExitMessage m;
  m.code = fields.nullable_integer("code");
  m.signal = fields.nullable_integer("signal");
  return m;
}

SandboxMessage SandboxMessage::read(FieldReader& fields) {
  SandboxMessage m;
  m.uid = fields.nullable_integer("uid");
  m.warnings = fields.optional_strings("warnings").value_or(std::vector<std::string>{});
  return m;
}

ProbeMessage ProbeMessage::read(FieldReader& fields) {
  ProbeMessage m;
  m.cuda = fields.boolean("cuda");
  m.device = fields.string("device");
  m.gpu_name = fields.nullable_string("gpu_name");
  m.gpu_count = fields.nullable_integer("gpu_count");
  m.driver = fields.nullable_string("driver");
  m.torch = fields.nullable_string("torch");
  m.torch_cuda = fields.nullable_string("torch_cuda");
  m.triton = fields.nullable_string("triton");
  m.python = fields.nullable_string("python");
  if (const json* caps = fields.nullable_object("sandbox_capabilities")) {
    FieldReader of_caps(*caps, "sandbox_capabilities of " + fields.what());
    of_caps.nullable_boolean("root");
    of_caps.nullable_boolean("netns");
    of_caps.nullable_boolean("cuda_as_uid");
    of_caps.nullable_boolean("toolkit_readable_as_uid");
    of_caps.nullable_integer("test_uid");
    if (of_caps.fault()) fields.fail(*of_caps.fault());
  }
  return m;
}

CeilingsMessage CeilingsMessage::read(FieldReader& fields) {
  CeilingsMessage m;
  const auto copy = fields.number_or_null("copy_gbps");
  m.copy_gbps = copy.value_or(0.0);
  if (const json* rates = fields.optional_object("matmul_tflops")) {
    for (const auto& [dtype, rate] : rates->items()) {
      if (!rate.is_number()) {
        fields.fail("fact 'matmul_tflops." + dtype + "' of " + fields.what() + " is " + rate.type_name() +
                    ", expected a number");
        break;
      }
      m.matmul_tflops[dtype] = rate.get<double>();
    }
  }
  return m;
}

EntryMessage EntryMessage::read(FieldReader& fields) {
  EntryMessage m;
  m.name = fields.string("name");
  return m;
}

CompileWarmUpMessage CompileWarmUpMessage::read(FieldReader& fields) {
  CompileWarmUpMessage m;
  m.ok = fields.boolean("ok");
  fields.number_or_null("seconds");
  return m;
}

bool DeviceMessage::is_device_type(const std::string& type) {
  return type == "device_alone" || type == "device_shared" || type == "device_paused" || type == "device_idle" ||
         type == "device_busy";
}

DoneMessage DoneMessage::read(FieldReader& fields) {
  DoneMessage m;
  if (const json* phases = fields.optional_object("phases")) {
    for (const auto& [name, seconds] : phases->items()) {
      if (seconds.is_number()) m.phases[name] = seconds.get<double>();
    }
  }
  if (const json* peak = fields.optional_object("peak_memory")) {
    FieldReader inner(*peak, fields.what() + ", its peak_memory");
    PeakMemory memory{inner.integer("host_bytes"), inner.integer("gpu_bytes"),
                      inner.optional_integer("guest_gpu_bytes"), inner.optional_integer("io_bytes")};
    if (inner.fault()) {
      fields.fail(*inner.fault());
    } else {
      m.peak_memory = memory;
    }
  }
  return m;
}

VariantDoneMessage VariantDoneMessage::read(FieldReader& fields) {
  VariantDoneMessage m;
  m.variant = fields.integer("variant");
  if (m.variant < 0) fields.fail("fact 'variant' of " + fields.what() + " is negative");
  return m;
}

}  // namespace keval
